"""Text normalisation shared by lexical search, duplicate detection and the gate."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from mnemo.domain.lookalikes import LOOKALIKES

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")

STOPWORDS = frozenset(
    """a about above after again against all am an and any are aren't as at be because been
    before being below between both but by can can't cannot could couldn't did didn't do does
    doesn't doing don't down during each few for from further had hadn't has hasn't have haven't
    having he he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll
    i'm i've if in into is isn't it it's its itself let's me more most mustn't my myself no nor
    not of off on once only or other ought our ours ourselves out over own same shan't she she'd
    she'll she's should shouldn't so some such than that that's the their theirs them themselves
    then there there's these they they'd they'll they're they've this those through to too under
    until up very was wasn't we we'd we'll we're we've were weren't what what's when when's where
    where's which while who who's whom why why's with won't would wouldn't you you'd you'll
    you're you've your yours yourself yourselves s t just also really did got get gets""".split()
)


def fold(text: str) -> str:
    """Lower-case, strip accents and unify apostrophes."""
    if text.isascii():
        return text.lower()
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return text.replace("\u2019", "'").replace("\u2018", "'").lower()


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light suffix stripper: 'hike'/'hikes'/'hiking'/'hiked' and 'live'/'lives' meet; cheap and stable."""
    if len(word) <= 3 or word.isdigit():
        return word
    base = word
    for suffix, replacement in (
        ("ies", "y"), ("ied", "y"), ("sses", "ss"), ("ness", ""), ("ments", "ment"),
        ("ings", ""), ("ing", ""), ("edly", ""), ("ed", ""), ("ly", ""), ("ches", "ch"), ("shes", "sh"),
        ("xes", "x"), ("zes", "z"), ("ss", "ss"), ("s", ""),
    ):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: len(word) - len(suffix)] + replacement
            # "running" -> "runn" -> "run": undo a doubled final consonant
            if suffix in {"ing", "ed", "ings"} and len(base) > 3 and base[-1] == base[-2] \
                    and base[-1] not in "lsz":
                base = base[:-1]
            break
    # a silent final e goes, so the stem of "like" is the stem of "liked" and "likes"
    if len(base) > 3 and base.endswith("e") and not base.endswith("ee"):
        base = base[:-1]
    return base


def words(text: str) -> list[str]:
    return _WORD.findall(fold(text))


def terms(text: str) -> list[str]:
    """Index terms: folded words without stopwords, stemmed; possessive 's dropped."""
    out: list[str] = []
    for raw in words(text):
        word = raw.removesuffix("'s")
        if word in STOPWORDS or (len(word) < 2 and not word.isdigit()):
            continue
        out.append(stem(word.replace("'", "")))
    return out


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def sentence_parts(text: str, min_words: int = 3) -> list[str]:
    """The sentences of a long memory, each embedded on its own (multi-vector relevance).

    A one-sentence memory has no parts: its whole embedding already says it all. A leading
    "Speaker:" label is repeated on every part so that each part keeps its subject.
    """
    label, sep, body = text.partition(": ")
    if not sep or len(label.split()) > 3:
        label, body = "", text
    parts = [p.strip() for p in _SENTENCE_END.split(body) if len(p.split()) >= min_words]
    if len(parts) < 2:
        return []
    return [f"{label}: {p}" if label else p for p in parts]


def normalise_content(text: str) -> str:
    """Canonical form for exact-duplicate detection."""
    return " ".join(words(text))


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate (about 4 characters a token for English, at least one a word).

    Other scripts take more tokens a character: a byte-level tokenizer spends about one on a Chinese or
    Japanese character (3 UTF-8 bytes) and more on an emoji or a mathematical letter (4). So a character
    outside ASCII counts as a third of a token a UTF-8 byte (2 bytes: 2/3, 3: 1, 4: 4/3) where an ASCII
    one counts a quarter: English is estimated as before, a block of Chinese no longer at a quarter."""
    if not text:
        return 0
    if text.isascii():
        return max(len(text) // 4, len(text.split()), 1)
    latin = len(text.encode("ascii", "ignore"))
    other_bytes = len(text.encode("utf-8", "surrogatepass")) - latin
    return max((3 * latin + 4 * other_bytes) // 12, len(text.split()), 1)


# the joiners (ZWNJ, ZWJ) shape the letters of scripts that need them (Persian "می<ZWNJ>خواهم", Sinhala
# "ශ්<ZWJ>රී", Devanagari half forms) and hold an emoji sequence together; only beside a Latin letter or
# digit, or at an edge, do they draw nothing and only hide a word from the screens ("pass<U+200D>word")
_JOINERS = frozenset("\u200c\u200d")
_KEPT_CONTROLS = frozenset("\t\n\r")


def _latin_or_edge(ch: str) -> bool:
    return not ch or (ch.isalnum() and ch < "\u0250")


def _invisible(text: str, at: int) -> bool:
    ch = text[at]
    if ch in _KEPT_CONTROLS:
        return False
    category = unicodedata.category(ch)
    if category == "Cc":
        return True
    if category != "Cf":
        return False
    if ch not in _JOINERS:
        return True
    return _latin_or_edge(text[at - 1:at]) or _latin_or_edge(text[at + 1:at + 2])


@lru_cache(maxsize=4096)
def _styled(ch: str) -> str | None:
    """A Latin letter or digit drawn in a style of its own (mathematical bold or script "𝐢𝐠𝐧𝐨𝐫𝐞", circled
    "ⓘ", "①") as its plain self; None for any other character. A model reads them as the words they
    spell: "𝐢𝐠𝐧𝐨𝐫𝐞 𝐚𝐥𝐥 𝐩𝐫𝐞𝐯𝐢𝐨𝐮𝐬 𝐢𝐧𝐬𝐭𝐫𝐮𝐜𝐭𝐢𝐨𝐧𝐬", a card number in bold digits, went past every screen."""
    if not unicodedata.decomposition(ch).startswith(("<font>", "<circle>")):
        return None
    plain = unicodedata.normalize("NFKC", ch)
    return plain if plain.isascii() and plain.isalnum() else None


def visible(text: str) -> str:
    """What a client sends, as a reader sees it: without the invisible characters (zero-width spaces,
    soft hyphens, bidirectional controls, control characters other than tab and newlines) and with
    fullwidth Latin letters, digits and signs, and styled ones (mathematical, circled), as their ASCII
    selves.

    Invisible characters carry nothing a reader of a memory sees, but they hide a word from the
    secret and injection screens ("pass<U+200B>word is hunter2", "SYS<U+200B>TEM:"); fullwidth forms
    do the same for markers (fullwidth "SYSTEM:"). Emoji sequences and the scripts that need them keep
    their joiners; accents and other scripts are untouched (no NFKC: it would rewrite what the user
    wrote, one-half into 1/2)."""
    if text.isascii() and text.isprintable():
        return text
    out: list[str] = []
    for at, ch in enumerate(text):
        if "\uff01" <= ch <= "\uff5e":
            out.append(chr(ord(ch) - 0xFEE0))
        elif ch >= "\u2100" and (plain := _styled(ch)) is not None:  # the styled forms start at U+2100
            out.append(plain)
        elif not _invisible(text, at):
            out.append(ch)
    return "".join(out)


# the characters that are whitespace, control (Cc) or format (Cf) characters in this Python's Unicode
# tables: nothing a reader sees (``visible`` drops the controls and format characters, ``strip`` the
# spaces; a joiner alone is no text either). Written out because computing it takes ~0.3 s at import;
# tests/unit/test_text.py checks it against unicodedata.
_UNSEEN_RANGES = (
    (0x0, 0x20), (0x7F, 0xA0), (0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C), (0x6DD, 0x6DD), (0x70F, 0x70F),
    (0x890, 0x891), (0x8E2, 0x8E2), (0x1680, 0x1680), (0x180E, 0x180E), (0x2000, 0x200F), (0x2028, 0x202F),
    (0x205F, 0x2064), (0x2066, 0x206F), (0x3000, 0x3000), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x13438), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001), (0xE0020, 0xE007F),
)


def _class_char(code: int) -> str:
    # \uXXXX reads the same in Python's re, JavaScript's RegExp and JSON Schema's patterns; a character
    # beyond the BMP goes in as itself (JavaScript without the u flag sees its two halves, which no
    # text holds alone)
    return f"\\u{code:04X}" if code <= 0xFFFF else chr(code)


# "holds something a reader sees", as a pattern a schema can carry (matched anywhere in the text): the
# rule of ``validate_content``'s "must not be empty" (anything but these ranges is visible text)
SEEN_CHARACTER_PATTERN = "[^" + "".join(
    _class_char(lo) if lo == hi else f"{_class_char(lo)}-{_class_char(hi)}" for lo, hi in _UNSEEN_RANGES) + "]"


class _ScreenForm(dict[int, str]):
    """``str.translate``'s table for ``screen_form``: filled as characters are met, a look-alike letter or a
    digit of another script with its ASCII form, any other character with itself (a miss costs a Python call:
    20,000 Chinese characters took 55 ms uncached). Past _SCREEN_TABLE_SIZE characters (a text spanning
    much of Unicode) the others are no longer kept (a ``LookupError`` leaves a character as it is)."""

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        plain = LOOKALIKES.get(ch)
        if plain is None:
            digit = unicodedata.digit(ch, None)
            if digit is None:
                if len(self) >= _SCREEN_TABLE_SIZE:
                    raise KeyError(code)
                plain = ch
            else:
                plain = str(digit)
        self[code] = plain
        return plain


_SCREEN_TABLE_SIZE = 65_536


_SCREEN_FORM = _ScreenForm()


def screen_form(text: str) -> str:
    """``text`` as the secret and injection screens read it: a letter of another script that looks like a
    Latin one as that letter ("p\u0430ssword" with a Cyrillic a), a digit of any script as an ASCII digit
    (superscript "\u2074\u00b9\u00b9\u00b9", Arabic-Indic "\u0664\u0661\u0661\u0661"), a character for
    a character: a span found in it is the same span of ``text``. Never stored or shown: a Greek or Russian
    word stays as written (see ``mnemo.domain.lookalikes``)."""
    if text.isascii():
        return text
    return text.translate(_SCREEN_FORM)
