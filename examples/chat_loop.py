"""A chat loop with long-term memory: any OpenAI-compatible model, mnemo through its Python client.

    make run                                   # mnemo on http://127.0.0.1:8080, in another shell
    OPENAI_API_KEY=sk-... python examples/chat_loop.py --user ana

The three calls a chat app makes (README, "Walkthrough with the Python client"):
1. before answering, ``retrieve``: the memories that matter for this message, as a labelled block
   that goes into the system prompt;
2. after answering, ``add_turns``: the user's message and the answer, from which mnemo extracts
   durable facts in the background;
3. when the conversation ends (end of input, or /quit), ``close_conversation``: extract now.

Settings: OPENAI_BASE_URL (default https://api.openai.com/v1; Ollama, vLLM, LM Studio and
llama.cpp's server speak the same API), OPENAI_API_KEY, OPENAI_MODEL (default gpt-4o-mini);
MNEMO_URL (default http://127.0.0.1:8080) and MNEMO_API_KEY. The model is called with httpx2,
which mnemo installs; nothing else is needed.
"""

from __future__ import annotations

import argparse
import os
import sys
import uuid
from typing import Any

import httpx2

from mnemo.client import Client

SYSTEM = "You are a helpful assistant. Answer briefly."


def complete(http: httpx2.Client, model: str, messages: list[dict[str, str]]) -> str:
    """One answer from an OpenAI-compatible chat-completions endpoint."""
    response = http.post("/chat/completions", json={"model": model, "messages": messages})
    response.raise_for_status()
    answer: Any = response.json()["choices"][0]["message"]["content"]
    return str(answer or "")


def chat(mnemo: Client, http: httpx2.Client, model: str, user_id: str, conversation_id: str) -> None:
    history: list[dict[str, str]] = []
    for line in sys.stdin:
        message = line.strip()
        if not message:
            continue
        if message == "/quit":
            break
        # 1. before answering: what matters about this user for this message (empty when nothing does)
        memory = mnemo.retrieve(user_id, message, conversation_id=conversation_id).context
        system = f"{SYSTEM}\n\n{memory}" if memory else SYSTEM
        history.append({"role": "user", "content": message})
        answer = complete(http, model, [{"role": "system", "content": system}, *history[-20:]])
        history.append({"role": "assistant", "content": answer})
        print(f"assistant: {answer}", flush=True)
        # 2. after answering: the turn, for extraction in the background (ids make a resend harmless)
        turn = uuid.uuid4().hex[:12]
        mnemo.add_turns(user_id, conversation_id, [
            {"role": "user", "content": message, "message_id": f"{turn}-u"},
            {"role": "assistant", "content": answer, "message_id": f"{turn}-a"}])
    # 3. the conversation ended: extract what is pending now
    mnemo.close_conversation(user_id, conversation_id)


def main() -> int:
    parser = argparse.ArgumentParser(description="a chat loop with mnemo memory; one message a line on stdin")
    parser.add_argument("--user", required=True, help="the end user's id in your app")
    parser.add_argument("--conversation", default=None, help="default: a new one")
    args = parser.parse_args()
    base_url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
    headers = {"Authorization": f"Bearer {os.environ.get('OPENAI_API_KEY', '')}"}
    model = os.environ.get("OPENAI_MODEL", "gpt-4o-mini")
    conversation = args.conversation or f"chat-{uuid.uuid4().hex[:8]}"
    with Client.from_env() as mnemo, httpx2.Client(base_url=base_url, headers=headers, timeout=60) as http:
        chat(mnemo, http, model, args.user, conversation)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
