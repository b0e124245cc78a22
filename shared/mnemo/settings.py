"""All tunables in one validated object, read once from the environment.

Every number that SPEC.md gives is a field here with that number as default, so a
deployment changes behaviour by configuration, never by editing code. Nothing below
the composition root reads ``os.environ``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from mnemo.domain.models import Category
from mnemo.errors import ConfigurationError

ENV_PREFIX = "MNEMO_"
JSON_FIELDS = frozenset({"weights", "retention_days", "recency_exempt", "tuning_bounds"})
CATEGORIES = frozenset(category.value for category in Category)
# R4, in days; None means never expires
DEFAULT_RETENTION_DAYS: dict[str, int | None] = {
    "preference": 180, "episodic": 90, "constraint": None, "biographical": None, "procedural": 180,
    "project_fact": 90, "task_state": 30, "tool_result": 1, "summary": 30}
DEFAULT_TUNING_BOUNDS: dict[str, tuple[float, float]] = {"a": (0.4, 0.8), "b": (0.05, 0.4), "c": (0.05, 0.3)}


class RankingWeights(BaseModel):
    """score = a*relevance + b*recency + c*confidence (+ small importance / use terms)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    a: float = Field(0.6, ge=0, le=1)
    b: float = Field(0.25, ge=0, le=1)
    c: float = Field(0.15, ge=0, le=1)
    importance: float = Field(0.05, ge=0, le=1)
    access: float = Field(0.02, ge=0, le=1)


class Settings(BaseModel):
    """The service's configuration; defaults come from SPEC.md."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # -- homes and back ends
    backend: Literal["local", "aws"] = "local"
    data_dir: Path = Path(".mnemo")
    # how long a write waits for another process's lock before answering 503
    sqlite_busy_timeout_ms: int = Field(10_000, ge=1, le=600_000)
    # a commit that leaves the WAL this many pages long checkpoints it, under the write lock (SQLite's
    # default: 1,000). `mnemo serve` checkpoints from its jobs process instead, every wal_checkpoint_seconds
    # and off the write lock (mnemo.adapters.local.sqlite_db.WalCheckpointer), and keeps the commits'
    # own checkpoint as a backstop at SERVE_AUTOCHECKPOINT_PAGES unless this is set
    sqlite_autocheckpoint_pages: int = Field(1000, ge=0, le=1_000_000)
    wal_checkpoint_seconds: float = Field(0.25, ge=0, le=60)  # 0: no checkpointer, the commits checkpoint
    api_keys: str = ""  # "tenant_a=key_a,tenant_b=key_b"
    log_level: str = "INFO"

    # -- the AWS home (names come from the CDK stack through the Lambda environment)
    aws_region: str = "eu-west-1"
    state_table: str = "mnemo-state"
    # the wrapped per-user data keys, in a table with no backups so an erase destroys them for good
    # (README "Backups and erasure"); empty keeps them in the state table, whose backups copy them
    key_table: str = ""
    kms_key_id: str = ""
    opensearch_url: str = ""
    opensearch_index: str = "mnemo-memories"
    # fixed when the index is created: per-user routing sends each query to one shard, so size shards
    # for storage (~40 GB each; README "Sizing"), not for query fan-out
    opensearch_shards: int = Field(4, ge=1, le=1024)
    opensearch_replicas: int = Field(1, ge=0, le=5)
    # a bulk write whose items OpenSearch rejects as overloaded (429) is retried this many times in all
    opensearch_bulk_attempts: int = Field(3, ge=1, le=10)
    # slow-log thresholds of the index, in ms (a user's search touches one shard and takes tens of ms;
    # the HTTP functions have 10 s for three searches); published once the domain's slow logs are on
    opensearch_slow_search_warn_ms: int = Field(1000, ge=1)
    opensearch_slow_search_info_ms: int = Field(200, ge=1)
    opensearch_slow_fetch_warn_ms: int = Field(500, ge=1)
    opensearch_slow_index_warn_ms: int = Field(1000, ge=1)
    opensearch_slow_index_info_ms: int = Field(200, ge=1)
    extract_queue_url: str = ""
    data_key_cache_seconds: float = Field(300.0, ge=0)
    consolidate_queue_url: str = ""
    # per attempt; the transport tries three times. The stack sets it per function so that a request's
    # sequential searches fit in the function's timeout (infra/stack.py opensearch_timeout)
    opensearch_timeout_seconds: float = Field(5.0, gt=0, le=60)
    # learned: the tagger trained by `make train-extractor` (docs/slots.md); rules: the old phrase rules;
    # bedrock / openai: an LLM (Bedrock, or any OpenAI-compatible endpoint), the learned one as fallback
    extractor: Literal["learned", "rules", "bedrock", "openai"] = "learned"
    extractor_model_path: Path | None = None  # default: the tagger shipped in mnemo/models
    # the MiniLM fine-tuned for the tagger (mnemo.training.encoder), whose token states the tagger reads;
    # default: the one shipped in mnemo/models (the Lambda bundle sets its copy's path)
    extractor_encoder_path: Path | None = None
    # the tagger proposes a value when its pieces are this likely to be in one on average; the pieces' tags
    # are read together (Viterbi), O's log-odds moved by log((1 - t) / t) for t = extractor_outside_at_least
    # (above 0.5: fewer pieces outside every value), and each value that starts with an inside tag or changes
    # slot halfway costs extractor_bio_penalty (log-odds; 0: each piece's own best tag, O included). The
    # decoding before (each piece on its own, outside only when O was at least 0.5 likely, else its best slot
    # tag) gave dev extraction 0.784 / 0.831; when it was chosen, penalty 0 gave 0.800 / 0.828 and 1.0 0.816 / 0.828
    # (tests/eval/extraction_frozen.py --set dev --no-training [--bio-penalty P])
    # A tagger with a verifier then keeps a proposal when the verifier finds it at least
    # extractor_verify_at_least likely to state a value (higher: fewer, surer facts)
    extractor_min_confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    extractor_outside_at_least: float = Field(default=0.5, ge=0.0, le=1.0)
    extractor_bio_penalty: float = Field(default=1.0, ge=0.0, le=50.0)
    extractor_verify_at_least: float = Field(default=0.3, ge=0.0, le=1.0)
    # a single-valued slot said twice in one message keeps the later value unless the user took nothing back
    # and the tagger was this much less sure of it (dev conversations: 96 -> 99/134 with 0.2 when it came; 0.1
    # since: "i moved to liverpool!! ... flat near sefton park" keeps liverpool; pending extraction's single
    # values right 0.957 -> 0.970, dev3 94 -> 96/150, dev4 58 -> 59/79, dev and dev2 unchanged; 0 loses dev 3)
    extractor_later_value_doubt: float = Field(default=0.1, ge=0.0, le=1.0)
    # the judge of the learned extractor's candidates (domain/extraction/judge.py, `make train-judge`): a fact the
    # tagger found is stored only when the judge finds it at least this likely to be one the user stated (0: no
    # judging; the judge's weights: extractor_judge_path, default the ones shipped in mnemo/models). Off: it trades
    # recall for precision about one for one on the extraction sets and loses conversation probes. At 0.05 / 0.1 dev
    # extraction 0.816 / 0.828 -> 0.840 / 0.811 / 0.848 / 0.792, pending 0.768 / 0.774 -> 0.798 / 0.761 / 0.807 / 0.745
    # (tests/eval/extraction_frozen.py --set dev|pending --no-training --judge-keep-at-least T); dev conversation
    # probes at 0.05 (dev, dev2..dev5) 114 / 97 / 117 / 69 / 42 -> 111 / 92 / 113 / 69 / 33 (facts it refused were
    # asked for later: probe keywords never stored dev 8 -> 11, dev2 15 -> 19, dev3 20 -> 28,
    # dev5 17 -> 29; tests/eval/conversations.py --data tests/eval/data/dev/conversations_devN.json
    # --judge-keep-at-least T)
    extractor_judge_keep_at_least: float = Field(default=0.0, ge=0.0, le=1.0)
    extractor_judge_path: Path | None = None
    # the learned judge of whether a message ends a stored fact (domain/extraction/ending.py; off: neutral on the dev
    # conversations, 351 probes right either way, forbidden blocks 14 -> 13; README, issue 10): each user message
    # an extraction job reads is judged against up to ending_max_facts of the user's live facts (the most recently
    # confirmed; the user's own and the conversation's project's), and a fact it ends with probability
    # >= ending_at_least is retired, as a retraction the user said would retire it. ending_model_path: another
    # model file (default: the one shipped in mnemo/models)
    ending_enabled: bool = False
    ending_at_least: float = Field(default=0.9, ge=0.0, le=1.0)
    ending_max_facts: int = Field(default=200, ge=1, le=2000)
    ending_model_path: Path | None = None
    # a pair the judge finds at least ending_confirm_from likely is read again by the fine-tuned cross-encoder
    # (mnemo.training.ending_encoder) and ended only if that too is at least ending_at_least sure; false: the
    # first judge alone. ending_cross_path: another cross-encoder (default: mnemo/models/ending-cross-int8.onnx, which
    # `make train-ending-encoder` writes; not shipped while the judge is off)
    ending_cross_encoder: bool = True
    ending_confirm_from: float = Field(default=0.5, ge=0.0, le=1.0)
    ending_cross_path: Path | None = None
    # a model id, a cross-region inference profile id ("us.anthropic...", what most regions serve newer
    # models through) or the ARN of either; IAM is granted on the profile and its models (infra/bedrock.py)
    bedrock_model_id: str = "anthropic.claude-3-5-haiku-20241022-v1:0"
    bedrock_timeout_seconds: float = Field(20.0, gt=0)
    bedrock_max_attempts: int = Field(2, ge=1, le=5)  # timeout x attempts is one call's worst case
    # consolidation's summaries: the offline rules, an OpenAI-compatible endpoint (either home) or Bedrock
    # (AWS home); auto = Bedrock when the extractor is Bedrock, else the rules. Models fall back to the rules.
    summariser: Literal["auto", "rules", "openai", "bedrock"] = "auto"
    # any OpenAI-compatible chat-completions server (OpenAI, Ollama, vLLM, llama.cpp's server, LM Studio),
    # for extraction (extractor=openai) and summaries (summariser=openai); the default is a local Ollama
    openai_base_url: str = "http://127.0.0.1:11434/v1"
    openai_model: str = ""  # required with extractor=openai, e.g. "gpt-4o-mini" or "llama3.1:8b"
    openai_api_key: SecretStr = SecretStr("")  # sent as a Bearer token when set; never printed
    openai_timeout_seconds: float = Field(30.0, gt=0, le=600)
    openai_max_tokens: int = Field(1500, ge=100, le=32_000)
    conflict_judge: Literal["rules", "bedrock"] = "rules"  # bedrock: a second opinion on ambiguous pairs
    consolidate_inline_users: int = Field(200, ge=0)  # above: one SQS message per user
    # how long a write waits for another worker's lease on the same user before answering 429
    # (the SQS message is then retried); the lease itself lapses after 30 s if its worker died
    user_lock_wait_seconds: float = Field(20.0, gt=0, le=600)

    # -- debounce (R3)
    debounce_turns: int = Field(5, ge=1, le=100)
    debounce_quiet_seconds: float = Field(30.0, ge=0, le=900)
    buffer_ttl_days: int = Field(7, ge=1)
    worker_poll_seconds: float = Field(0.5, gt=0, le=60)
    # one delivery at a time extracts a conversation; a worker that dies mid-job holds it this long at
    # most (in AWS: above the extract function's timeout, below the queue's visibility timeout)
    extraction_lease_seconds: float = Field(180.0, gt=0, le=3600)
    extraction_retry_seconds: float = Field(60.0, ge=0, le=3600)  # a failed job runs again after this
    extraction_busy_retry_seconds: float = Field(10.0, ge=0, le=900)  # a copy that found its conversation busy

    # -- extraction and validation (R3, R8)
    min_store_confidence: float = Field(0.5, ge=0, le=1)
    active_confidence: float = Field(0.5, ge=0, le=1)  # > this -> active, else probationary
    confirm_high_stakes: bool = True

    # -- conflicts (R6)
    # a new value in a slot replaces the old one unless the extractor was this much less sure of it and
    # nothing in the message said it changed (then it is kept for the record, superseded at once)
    supersede_doubt_margin: float = Field(0.15, ge=0, le=1)
    conflict_similarity: float = Field(0.85, ge=0, le=1)
    duplicate_similarity: float = Field(0.95, ge=0, le=1)
    # standing answer instructions are one multi-valued slot, so a new one replaces an old one only when
    # it is about the same thing: this close ("code first" -> "explanation first, code after"), or
    # close and saying it changes something ("you don't need to add translations anymore")
    instruction_replace_similarity: float = Field(0.80, ge=0, le=1)
    instruction_change_similarity: float = Field(0.70, ge=0, le=1)
    # "no longer does volleyball" retires "User's hobby: volleyball" (another slot) at this similarity
    retraction_similarity: float = Field(0.5, ge=0, le=1)

    # -- retrieval (R5)
    weights: RankingWeights = RankingWeights()
    # recency = exp(-lambda * days since last confirmed); lambda ~ a 180-day half-life. Categories
    # whose truth does not drift with age (who the user is, what they must avoid, dated events, which
    # expire by TTL instead) are exempt: recency must not bury an old but still true fact.
    recency_lambda: float = Field(0.00385, ge=0)
    recency_exempt: frozenset[str] = frozenset({"biographical", "constraint", "episodic"})
    # hybrid relevance = 0.3 BM25 + 0.7 cosine. The tuning half of LoCoMo preferred 0.15 with
    # sentence_weight 0.5 (R@10 0.770 against 0.746), the checking half did not (0.701 against 0.707,
    # single-hop 0.728 against 0.750): kept as they were (issue 15, tests/bench/locomo_tune.py)
    lexical_weight: float = Field(0.3, ge=0, le=1)
    sentence_weight: float = Field(0.7, ge=0, le=1)  # long memories: mix of whole and best sentence
    # a memory made on a day (or in a month) the query names by its date gains this much relevance, and
    # a day named means that day +- date_slack_days (the asker's day is not UTC's); 0 switches it off.
    # LoCoMo R@10 with / without: tuning half 0.746 / 0.731, checking half 0.707 / 0.691 (issue 15)
    date_boost: float = Field(0.2, ge=0, le=1)
    date_slack_days: int = Field(1, ge=0, le=31)
    # a month named without a year ("camping in June") is the latest such month begun when the query is
    # asked, and boosted as a month with its year is (issue 15); off: only dates with their year count
    date_month_without_year: bool = True
    # a memory gains context_weight x the best own relevance among the other candidates made within
    # context_window_seconds of it (the same sitting): a reply seldom repeats the words of the question it
    # answers. Only orders: min_relevance is tested on a memory's own relevance. 0 switches it off.
    # Chosen on LoCoMo's tuning half (issue 15; figures in the README)
    context_weight: float = Field(0.4, ge=0, le=1)
    context_window_seconds: float = Field(1800.0, gt=0, le=86400)
    # search (not retrieve) also has a second query vector, the question without its words found in more than
    # common_word_share of the user's memories (an embedding has no IDF: "Melanie" in a question about
    # Melanie's hobbies pulls every memory of Melanie's), and adds second_query_weight x each candidate's
    # cosine to it; only orders. second_query_kind "word_vectors": the question's vector minus
    # common_word_subtract x each such word's own vector (cached per user: the same few words recur);
    # "text": the question without them embedded (a second run of the encoder, ~1.5x a query's embedding).
    # 0 switches it off. Chosen on LoCoMo's tuning half (issue 15; README); the AWS home counts no terms, so
    # it never applies there
    second_query_weight: float = Field(0.3, ge=0, le=1)
    second_query_kind: Literal["word_vectors", "text"] = "word_vectors"
    common_word_share: float = Field(0.2, gt=0, le=1)
    common_word_subtract: float = Field(0.5, ge=0, le=2)
    # a search's first sitting_penalty_depth candidates are re-ordered so that each loses sitting_penalty of
    # relevance (of score, in retrieve) for every memory above it made within context_window_seconds of it:
    # questions needing several sittings ("what activities does she do?") get more than one. Not kept (0,
    # off): on LoCoMo's tuning half R@10 fell at every penalty, single-hop most (issue 15; README)
    sitting_penalty: float = Field(0.0, ge=0, le=1)
    sitting_penalty_depth: int = Field(60, ge=2, le=1000)
    min_relevance: float = Field(0.3, ge=0, le=1)
    # a personal request seldom shares words with the fact it needs ("my lil furball" -> "pet: Mochi"): up to
    # this many memories under min_relevance still go in when they are the best there is, at least
    # near_miss_floor relevant and at least near_miss_ratio of the best memory's relevance; 0 switches it off
    near_miss_limit: int = Field(4, ge=0, le=20)
    # a fact of someone in the user's care (family_care: a dependant, a relative or housemate at the user's table)
    # goes in only when the request needs the family, names the person or speaks of the user with others
    # (domain/for_others.py): "what should I have for lunch" is no request to cook for the partner; false: by
    # relevance alone, as any fact
    care_facts_when_asked: bool = True
    near_miss_floor: float = Field(0.08, ge=0, le=1)
    near_miss_ratio: float = Field(0.5, ge=0, le=1)
    # the extractor may split one clause into several facts ("joined the cathedral choir, Thursday evenings,
    # alto" -> "routine: Thursday evenings, alto" and "routine: cathedral choir"): up to this many facts from
    # the clause of a memory that goes in go in beside it, whatever their own relevance; 0 switches it off
    said_together_limit: int = Field(2, ge=0, le=10)
    # which kinds of fact a request needs, learned from labelled requests (domain/slot_affinity.py): a memory
    # in a slot the request needs with probability p >= slot_affinity_at_least gains slot_boost * p of
    # relevance ("my buddy" -> the user's pets); 0 switches it off, the gate's second look below with it.
    # slot_affinity_path: another model file
    slot_boost: float = Field(0.2, ge=0, le=1)
    slot_affinity_at_least: float = Field(0.5, ge=0, le=1)
    slot_affinity_path: Path | None = None
    # a kind of fact the request needs at least this likely (the slot affinity, kindred slots included) gets
    # the best of its live memories the relevance floor left out, after what cleared it: "cli entrypoint with a
    # --dry-run flag" needs the project's stack 0.94, though "User's project uses python 3.12" shares no word
    # with it; 0 switches it off
    needed_slot_at_least: float = Field(0.7, ge=0, le=1)
    # a request the gate would skip as general knowledge is searched after all when the slot affinity gives
    # a slot at least this probability, its own or that of its kindred slots as the boost reads it (chosen on
    # the dev requests, where `python -m mnemo.training.query_slots` printed 7 of 13 skipped ones that needed a
    # fact searched, 1 of 24 that did not; with the kindred slots 8 of 13, 9 with the shipped weights, and 2 of
    # 24); 0 switches it off
    gate_second_look_at_least: float = Field(0.6, ge=0, le=1)
    # a query the gate skips (general knowledge, about the assistant) still gets the user's standing
    # answer instructions (format, language, length, tone) and nothing else (issue 10, item 5)
    instructions_on_skip: bool = True
    # a question about the user's coming days or months ("what's coming up", "what should I prepare this
    # month") also gets up to this many of their live plans still ahead, soonest first; 0 switches it off
    agenda_limit: int = Field(3, ge=0, le=20)
    min_cosine: float = Field(0.1, ge=-1, le=1)  # a floor under the fused relevance, for lexical-only matches
    candidate_multiplier: int = Field(4, ge=1, le=50)
    default_top_k: int = Field(5, ge=1, le=50)
    token_budget: int = Field(500, ge=50)
    token_budget_cap: int = Field(2000, ge=50)
    # memories are short: lighter length normalisation than the document-retrieval defaults
    bm25_k1: float = Field(0.9, gt=0)
    bm25_b: float = Field(0.4, ge=0, le=1)
    query_cache_size: int = Field(1024, ge=0)
    # pieces of users' turns whose tagger readings the extraction keeps (the rolling summary reads turns again)
    extraction_cache_size: int = Field(4096, ge=0)
    trace_ttl_days: int = Field(30, ge=1)

    # -- retention (R4), in days; None means never expires. A map given names only the categories it changes
    retention_days: dict[str, int | None] = Field(default_factory=lambda: dict(DEFAULT_RETENTION_DAYS))
    session_memory_ttl_hours: int = Field(24, ge=1)

    # -- session state (R2)
    session_ttl_hours: float = Field(24.0, gt=0)
    session_summary_every: int = Field(10, ge=2)  # turns between rolling-summary checkpoints
    session_recent_turns: int = Field(6, ge=1)  # kept raw after a checkpoint
    session_summary_chars: int = Field(1500, ge=200)
    # one session's state, as stored (JSON bytes): under DynamoDB's 400 KB item with room for the seal; a turns
    # request of 40 messages of 20,000 characters made it a 503 there, the turns buffered and no job scheduled
    session_state_max_bytes: int = Field(300_000, ge=20_000)

    # -- feedback (R7)
    feedback_up: float = Field(0.1, ge=0, le=1)
    feedback_down: float = Field(0.2, ge=0, le=1)
    correction_decay: float = Field(0.2, ge=0, le=1)
    forget_min_relevance: float = Field(0.45, ge=0, le=1)
    # a forget asks whether a text is about what the user named, not how well it answers a question, so
    # the words the user used weigh more than in retrieval's lexical_weight: relevance = this x the
    # lexical share + the rest x cosine; without any shared word the cosine alone must reach
    # forget_min_cosine
    forget_lexical_weight: float = Field(0.5, ge=0, le=1)
    forget_min_cosine: float = Field(0.6, ge=-1, le=1)

    # offline tuning (R7 channel C): bounds for a, b, c and how much evidence a change needs
    tuning_bounds: dict[str, tuple[float, float]] = Field(default_factory=lambda: dict(DEFAULT_TUNING_BOUNDS))
    tuning_min_samples: int = Field(20, ge=1)
    tuning_rate: float = Field(0.1, gt=0, le=1)

    # -- lifecycle (R8, R9)
    probation_prune_days: int = Field(60, ge=1)
    prune_confidence: float = Field(0.3, ge=0, le=1)
    superseded_archive_days: int = Field(30, ge=1)
    max_active_memories: int = Field(1000, ge=10)
    consolidation_cluster_size: int = Field(50, ge=5)
    # a topic holds together while the mean similarity across two groups of episodes stays above this
    # (tests/eval/summaries.py: 0.55-0.60 keeps every generated topic whole and apart; runs and bike rides
    # share a unit and are 0.51 apart, one topic written three ways is 0.62 together)
    cluster_similarity: float = Field(0.57, ge=0, le=1)
    # new episodes of a topic already summarised, enough to summarise it again (the new summaries
    # supersede the old, claim by claim)
    consolidation_refresh_size: int = Field(10, ge=1)
    summary_confidence: float = Field(0.8, ge=0, le=1)
    consolidation_interval_hours: float = Field(24.0, gt=0)
    profile_max_bytes: int = Field(2048, ge=256)
    # the cached profile is rebuilt at least this often, whatever else happens (it is rebuilt at
    # once when a memory changes or expires): a bound on staleness should a writer die mid-change
    profile_rebuild_hours: float = Field(24.0, gt=0)

    # -- embeddings
    embedder: Literal["onnx", "titan"] = "onnx"  # titan: Amazon Titan Text Embeddings V2 (AWS home only)
    titan_model_id: str = "amazon.titan-embed-text-v2:0"
    titan_dimensions: Literal[256, 512, 1024] = 1024
    titan_concurrency: int = Field(8, ge=1, le=64)
    embedding_threads: int = Field(2, ge=1, le=64)
    embedding_batch_size: int = Field(64, ge=1, le=512)
    # queries through the faster dynamic-int8 twin of the model, shipped in mnemo/models
    # (derived at development time by mnemo.training.query_model)
    fast_query_model: bool = True
    # the Lambda bundle carries model.onnx + tokenizer.json (and the query twin) in one folder,
    # without the packages they come from; default: found in the installed packages
    model_dir: Path | None = None
    query_model_path: Path | None = None  # default: the twin shipped in mnemo/models
    # the search route's questions through a query encoder fine-tuned to find the memories that answer them
    # (mnemo.training.query_tower, shipped in mnemo/models; retrieve keeps the twin, which its slot affinity
    # and gate were trained on); off: search embeds like retrieve
    search_query_model: bool = True
    search_query_model_path: Path | None = None  # default: the one shipped in mnemo/models
    # search's share of BM25 in the hybrid relevance while its questions go through that encoder (retrieve,
    # and search without it, keep lexical_weight): the encoder finds the answering memory by meaning, and
    # the words shared with the question matter less. LoCoMo's tuning half, R@10 from 0.4 to 0.05: 0.794,
    # 0.807 (0.3), 0.812, 0.815, 0.820 (0.15), 0.819, 0.810 (tests/bench/locomo_query_tower.py --variant); the
    # checking half, 0.3 -> 0.15: 0.750 -> 0.747, multi-hop 0.439 -> 0.476, open-domain 0.523 -> 0.614 (README)
    search_lexical_weight: float = Field(0.15, ge=0, le=1)

    # -- limits of the API
    max_body_bytes: int = Field(1_048_576, ge=1024)
    max_import_items: int = Field(500, ge=1)
    max_content_chars: int = Field(2000, ge=10)
    # per request: sentences the extraction or the writer must segment (turns, memories) and texts
    # to embed (a long memory is embedded sentence by sentence): a bound on the work one request does
    max_request_sentences: int = Field(2000, ge=1)
    max_request_embeddings: int = Field(2000, ge=1)

    # -- the local server (`mnemo serve`)
    # per tenant, over every worker: requests a second (token bucket; 0 = no limit) with a burst of
    # that many at once (0 = one second's worth), and requests in progress at once (0 = no limit)
    tenant_requests_per_second: float = Field(0.0, ge=0)
    tenant_burst: int = Field(0, ge=0)
    tenant_concurrent_requests: int = Field(0, ge=0, le=1024)
    # requests each worker process of `mnemo serve` serves at once, a thread and a resolver each (1: one at a
    # time, gunicorn's sync workers; more: its gthread workers)
    serve_threads: int = Field(1, ge=1, le=64)
    # with sync workers (serve_threads 1): a reserve process beside each worker takes over its accepting while
    # it serves a write, so reads do not queue behind writes (mnemo.write_reserve); twice the processes, each with
    # its own caches (off: in the chat mix it cost CPU a request and did not lower the retrieve p99, README issue 14)
    serve_write_reserve: bool = False
    # with one worker a core (the default --workers): each worker keeps to a core of its own rather than following
    # the scheduler from core to core (mnemo.serving.pin_to_a_free_core).
    # Not with the write reserve, nor with more or fewer workers than cores. Off: it lowered the retrieve tail at a
    # fixed rate, but on a machine with other work a pinned worker cannot leave a busy core, and half of the
    # load benchmark's runs with it saturated at two thirds of the rate (README issue 14, eighth pass)
    serve_pin_workers: bool = False
    # a worker busy this long on one request is replaced (its transaction rolls back)
    request_timeout_seconds: float = Field(60.0, gt=0, le=3600)
    # the longest a client may leave its connection silent while it sends its request (a sync worker reads it
    # itself, waiting for nothing else): a connection that stalls in its headers or body is closed (408 in
    # the body) instead of holding a worker to the request timeout, when the arbiter kills it
    client_read_timeout_seconds: float = Field(10.0, gt=0, le=3600)
    # on SIGTERM: how long in-flight requests and the extraction job in progress get to finish
    shutdown_grace_seconds: float = Field(30.0, gt=0, le=3600)
    # the background jobs (extraction, consolidation) run in a process of their own at this nice
    # value: request workers get the cores first. The server waits this long at start for it.
    jobs_nice: int = Field(10, ge=0, le=19)
    # and, on Linux where the process may leave it again, under SCHED_IDLE: it runs only on a core no
    # request worker wants (its threads run as ordinary ones while they hold a lock a request may wait
    # for: mnemo.adapters.local.priority)
    jobs_idle_priority: bool = True
    jobs_start_timeout_seconds: float = Field(15.0, ge=0, le=600)
    # a bearer key for /metrics from a non-loopback address (loopback scrapes need none)
    metrics_key: str = ""
    access_log: bool = True
    # a `Server-Timing: app;dur=<ms>` header on every answer: the time the application itself took, so
    # a client (tests/bench/serve_load.py) can tell the server's queueing from its service time
    server_timing: bool = False

    # a long memory is embedded sentence by sentence: at most this many parts (neighbouring sentences
    # share one beyond it), so one memory costs a bounded number of embeddings (a 600 KB import of one
    # sentence repeated once took 25 s and 135 MB)
    max_sentence_parts: int = Field(16, ge=2, le=256)
    # a memory an app hands over (remember, import, an edit) of at least memory_keys_min_words words can
    # also be indexed under up to memory_keys keys from the facts the learned extractor finds in it (the
    # clause around each, its statement, or both: mnemo.domain.keys), embedded beside its sentences.
    # Off by default: LoCoMo R@10 without / with (clause keys, issue 15, tests/bench/locomo.py) was
    # 0.746 / 0.749 on the tuning half (multi-hop 0.522 / 0.534) but 0.707 / 0.705 on the checking half
    # (multi-hop 0.453 / 0.442; R@5 0.647 / 0.657), for about 2.5x the import time of a chat turn.
    # Statements ("fact": 0.743) and both kinds (0.746) did no better on the tuning half.
    memory_keys: int = Field(0, ge=0, le=16)
    memory_keys_min_words: int = Field(6, ge=1)
    memory_key_kind: Literal["clause", "fact", "both"] = "clause"
    # a created_at may run this far ahead of the server's clock (client clocks drift); later is refused
    max_clock_skew_seconds: float = Field(300.0, ge=0)

    @field_validator("retention_days", "tuning_bounds", mode="before")
    @classmethod
    def _over_the_defaults(cls, value: Any, info: ValidationInfo) -> Any:
        # a map names only what it changes: MNEMO_RETENTION_DAYS='{"episodic": 30}' once replaced the whole
        # map, and every category it left out never expired (a partial tuning map broke `mnemo tune`)
        defaults = DEFAULT_RETENTION_DAYS if info.field_name == "retention_days" else DEFAULT_TUNING_BOUNDS
        return {**defaults, **value} if isinstance(value, Mapping) else value

    @field_validator("retention_days")
    @classmethod
    def _retention_of_known_categories(cls, value: dict[str, int | None]) -> dict[str, int | None]:
        _known(value, CATEGORIES, "category")
        for category, days in value.items():
            if days is not None and days < 1:
                raise ValueError(f"{category}: {days} days; at least 1, or null for never")
        return value

    @field_validator("recency_exempt")
    @classmethod
    def _exempt_known_categories(cls, value: frozenset[str]) -> frozenset[str]:
        _known(value, CATEGORIES, "category")  # a misspelt category would decay without a word
        return value

    @field_validator("tuning_bounds")
    @classmethod
    def _bounds_of_the_weights(cls, value: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
        _known(value, frozenset(DEFAULT_TUNING_BOUNDS), "weight")
        for weight, (low, high) in value.items():
            if not 0 <= low <= high <= 1:
                raise ValueError(f"{weight}: [{low}, {high}]; bounds go from low to high within [0, 1]")
        return value

    @model_validator(mode="after")
    def _budget_within_cap(self) -> Settings:
        if self.token_budget > self.token_budget_cap:
            raise ValueError("token_budget must not exceed token_budget_cap")
        if self.extractor == "openai" and not self.openai_model.strip():
            raise ValueError("openai_model is required when extractor is openai")
        if self.extractor == "openai" and not self.openai_base_url.startswith(("http://", "https://")):
            raise ValueError("openai_base_url must be an http:// or https:// URL")
        return self

    def tenant_keys(self) -> dict[str, str]:
        """Map of API key -> tenant from ``api_keys``."""
        keys: dict[str, str] = {}
        for pair in filter(None, (p.strip() for p in self.api_keys.split(","))):
            tenant, sep, key = pair.partition("=")
            if not sep or not tenant.strip() or not key.strip():
                raise ConfigurationError("MNEMO_API_KEYS must look like 'tenant_a=key_a,tenant_b=key_b'")
            keys[key.strip()] = tenant.strip()
        return keys

    @classmethod
    def from_env(cls, environ: Mapping[str, str], **overrides: Any) -> Settings:
        """Read ``MNEMO_*`` variables; JSON values for the nested fields (weights, retention)."""
        raw: dict[str, Any] = {}
        for name, field in cls.model_fields.items():
            value = environ.get(ENV_PREFIX + name.upper())
            if value is None:
                continue
            if field.annotation is not None and name in JSON_FIELDS:
                try:
                    raw[name] = json.loads(value)
                except json.JSONDecodeError as exc:
                    raise ConfigurationError(f"{ENV_PREFIX}{name.upper()} must be JSON") from exc
            else:
                raw[name] = value
        raw.update(overrides)
        try:
            return cls.model_validate(raw)
        except ValidationError as exc:
            errors = exc.errors()
            fields = ", ".join(".".join(str(p) for p in e["loc"]) for e in errors if e["loc"])
            reason = str(errors[0]["msg"]).removeprefix("Value error, ")
            # a rule across settings (token_budget over its cap) belongs to no one field
            raise ConfigurationError(f"invalid settings: {fields}: {reason}" if fields
                                     else f"invalid settings: {reason}") from exc


def _known(names: Iterable[str], known: frozenset[str], kind: str) -> None:
    unknown = sorted(set(names) - known)
    if unknown:
        raise ValueError(f"unknown {kind} {unknown[0]!r} (known: {', '.join(sorted(known))})")
