"""A generated corpus of realistic secrets and identifiers inside varied sentences (deterministic)."""

from __future__ import annotations

import random
import re
import string

from mnemo.domain.sensitive import luhn_valid


def card(rng: random.Random, prefix: str, length: int) -> str:
    while True:
        digits = prefix + "".join(rng.choice(string.digits) for _ in range(length - len(prefix)))
        if luhn_valid(digits):
            return digits


def iban(rng: random.Random, country: str, length: int) -> str:
    bban = "".join(rng.choice(string.digits) for _ in range(length - 4))
    rearranged = bban + country + "00"
    number = int("".join(str(int(ch, 36)) for ch in rearranged))
    check = 98 - number % 97
    return f"{country}{check:02d}{bban}"


def group(text: str, size: int, sep: str) -> str:
    return sep.join(text[i:i + size] for i in range(0, len(text), size))


def secrets(rng: random.Random) -> list[tuple[str, str]]:
    """(kind, the value as a user would paste it, labels included)."""
    alnum = string.ascii_letters + string.digits
    out: list[tuple[str, str]] = []
    for prefix, length in (("4", 16), ("51", 16), ("37", 15), ("6011", 16)):
        for sep in (" ", "-", ""):
            out.append(("card", group(card(rng, prefix, length), 4, sep)))
    for country, length in (("DE", 22), ("GB", 22), ("FR", 27), ("ES", 24), ("NL", 18)):
        value = iban(rng, country, length)
        out += [("iban", value), ("iban", group(value, 4, " "))]
    for _ in range(4):
        out.append(("ssn", f"{rng.randint(100, 665)}-{rng.randint(10, 99)}-{rng.randint(1000, 9999)}"))
    out += [
        ("aws_key", "AKIA" + "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(16))),
        ("aws_secret", "aws_secret_access_key=" + "".join(rng.choice(alnum + "/+") for _ in range(40))),
        ("github", "ghp_" + "".join(rng.choice(alnum) for _ in range(36))),
        ("github", "github_pat_" + "".join(rng.choice(alnum + "_") for _ in range(40))),
        ("slack", "xoxb-" + "-".join("".join(rng.choice(string.digits) for _ in range(12)) for _ in range(2))
         + "-" + "".join(rng.choice(alnum) for _ in range(24))),
        ("stripe", "sk_live_" + "".join(rng.choice(alnum) for _ in range(24))),
        ("openai", "sk-proj-" + "".join(rng.choice(alnum) for _ in range(40))),
        ("google", "AIza" + "".join(rng.choice(alnum + "_-") for _ in range(35))),
        ("gitlab", "glpat-" + "".join(rng.choice(alnum) for _ in range(20))),
        ("jwt", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
         + "".join(rng.choice(alnum + "_-") for _ in range(43))),
        ("bearer", "Bearer " + "".join(rng.choice(alnum) for _ in range(32))),
        ("db_url", f"postgres://admin:{''.join(rng.choice(alnum) for _ in range(12))}@db.internal:5432/prod"),
        ("private_key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA"
         + "".join(rng.choice(alnum) for _ in range(60)) + "\n-----END RSA PRIVATE KEY-----"),
        ("private_key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA"
         + "".join(rng.choice(alnum) for _ in range(40)) + "\n-----END OPENSSH PRIVATE KEY-----"),
    ]
    for phrase in ("my password is {}", "password: {}", "the wifi password is {}", "my pin is {}",
                   "passcode {}", "my login is bob and the pwd is {}", "use the passphrase {}"):
        value = rng.choice(alnum) + "".join(rng.choice(alnum + "!#$%") for _ in range(rng.randint(8, 14))) \
            + str(rng.randint(0, 9))
        out.append(("password", phrase.format(value)))
    for phrase in ("my passport number is {}", "passport no. {}", "my national insurance number is {}",
                   "my driver's license number is {}", "my tax id is {}"):
        value = "".join(rng.choice(string.ascii_uppercase) for _ in range(2)) + "".join(
            rng.choice(string.digits) for _ in range(7))
        out.append(("government_id", phrase.format(value)))
    return out


SENTENCES = [
    "Here you go: {s}. Also, I live in Porto.",
    "btw {s} and I'm vegetarian",
    "Can you keep {s} somewhere? I love jazz music.",
    "I'm allergic to peanuts. {s}",
    "{s} -- oh and I work as a nurse.",
    "Please remember {s} for later, I have a dog named Rex.",
    "For the booking use {s}; I prefer window seats.",
]
FACTS = {0: "Porto", 1: "vegetarian", 2: "jazz", 3: "peanuts", 4: "nurse", 5: "Rex", 6: "window seats"}


def needles(kind: str, value: str) -> list[str]:
    """What must never appear anywhere: the secret itself, in every form it was given."""
    if kind in {"card", "iban"}:
        return [value, value.replace(" ", "").replace("-", "")]
    if kind == "private_key":
        return [value.split("\n")[1]]
    # labelled ones: the last word is the secret ("my password is X", "Bearer X", "key=X")
    return [re.split(r"[\s=]", value)[-1].rsplit("@", 1)[0].split(":")[-1]]


def corpus(seed: int = 7, rounds: int = 4) -> list[tuple[str, list[str], str, str]]:
    """(kind, secret forms that must vanish, message, the durable fact word that must survive)."""
    rng = random.Random(seed)
    out = []
    for _ in range(rounds):
        for kind, value in secrets(rng):
            index = rng.randrange(len(SENTENCES))
            out.append((kind, needles(kind, value), SENTENCES[index].format(s=value), FACTS[index]))
    return out
