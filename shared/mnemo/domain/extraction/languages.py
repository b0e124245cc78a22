"""The English names of the languages users speak of, for telling a language from a place.

A language is no place to live ("english or tagalog mass" was stored as "User lives in tagalog."), and the
names of languages, unlike those of places, are few and fixed: an exact list is the right tool. Each name is
one a language goes by and no country, region or city does ("Georgian", not "Georgia").
"""

from __future__ import annotations

import re

LANGUAGES = frozenset("""
afrikaans akan albanian amharic arabic armenian assamese azerbaijani azeri basque belarusian bengali bangla
bosnian breton bulgarian burmese cantonese catalan cebuano chichewa chinese cornish croatian czech danish dari
dutch english esperanto estonian ewe faroese farsi filipino finnish flemish french frisian fula fulani galician
georgian german greek guarani gujarati haitian creole hausa hawaiian hebrew hindi hmong hungarian icelandic igbo
ilocano ilokano indonesian irish gaelic italian japanese javanese kannada kazakh khmer kinyarwanda kirundi korean
kurdish kurmanji kyrgyz lao latin latvian lingala lithuanian luganda luxembourgish macedonian malagasy malay
malayalam maltese mandarin manx maori marathi mongolian nepali norwegian odia oriya oromo pashto persian polish
portuguese punjabi quechua romanian romansh russian samoan sanskrit scots serbian sesotho setswana shona sindhi
sinhala sinhalese slovak slovenian slovene somali sorani spanish sundanese swahili kiswahili swedish tagalog
tajik tamil tatar telugu thai tibetan tigrinya tongan turkish turkmen twi ukrainian urdu uyghur uzbek vietnamese
welsh wolof xhosa yiddish yoruba zulu
""".split())


def is_a_language(value: str) -> bool:
    """Whether ``value`` is a language's name, and nothing more ("tagalog", "Haitian Creole")."""
    words = value.lower().strip(" .,!?").split()
    return bool(words) and all(w in LANGUAGES for w in words)


# the same names as users write them in their own languages, and the sign languages by their letters
OWN_NAMES = frozenset("""
français francais anglais espagnol allemand italien portugais arabe chinois japonais russe español espanol inglés
ingles alemán aleman francés frances portugués portugues italiano deutsch englisch französisch spanisch italienisch
português inglês espanhol francês alemão árabe arabo inglese tedesco spagnolo francese hindi urdu tagalog
sign bsl asl auslan lsf
""".split())


# words no language is called, which the tagger read as one ("et aussi, réponds-moi en français": "aussi")
_NO_LANGUAGE = frozenset("""
aussi also too et and y e und auch the a an or but so then now here there very well bien très un une le la les de
du des el los las con avec mit with me moi you tu vous it its
""".split())
# the endings of languages' names, for the many no list holds ("Arrernte" has a capital, "patois" none)
_LANGUAGE_ENDING = re.compile(r"(?:ish|ese|ian|ic|ali|ili|ois|gin|ole)$")


def names_a_spoken_language(value: str) -> bool:
    """Whether ``value`` may be a language's name: one a list holds ("a bit of Spanish", "français"), or a word
    with a capital or a language's ending that is no common word ("Arrernte", "Maa", "patois", "pidgin")."""
    words = [w.strip(" .,!?()'\"") for w in value.split()]
    if any(w.lower() in LANGUAGES | OWN_NAMES for w in words):
        return True
    named = [w for w in words if w and w.lower() not in _NO_LANGUAGE]
    return any(w[0].isupper() or _LANGUAGE_ENDING.search(w.lower()) for w in named)
