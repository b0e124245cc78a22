"""A routine said in the languages users switch to: "corro 5k todos los domingos", "faço muay thai 3x por semana",
"je fais du bouldering deux fois par semaine", "ich gehe jeden Morgen um 6 schwimmen", "gioco a padel il martedì e
giovedì sera", "biegam 3 razy w tygodniu".

The tagger learned routines from English ("I swim every morning at 6", "3 times a week"), and reads these as a
hobby, a job ("User's job: running club.") or nothing, yet a week's plan or a training plan turns on them. How often
something recurs is said in a few fixed phrases per language, so they are read here: the clause that holds one,
said by the user (no relative or friend named before it), is the routine. English is the tagger's.
"""

from __future__ import annotations

import re

ROUTINE_MAX_WORDS = 14

_ES_DAYS = r"(?:lunes|martes|mi[ée]rcoles|jueves|viernes|s[áa]bados|domingos)"
_PT_DAYS = r"(?:segundas?|ter[çc]as?|quartas?|quintas?|sextas?|s[áa]bados|domingos)(?:-feiras?)?"
_FR_DAYS = r"(?:lundis?|mardis?|mercredis?|jeudis?|vendredis?|samedis?|dimanches?)"
_DE_DAYS = r"(?:Montag|Dienstag|Mittwoch|Donnerstag|Freitag|Samstag|Sonntag)"
_IT_DAYS = r"(?:luned[iì]|marted[iì]|mercoled[iì]|gioved[iì]|venerd[iì]|sabato|domenica)"
_COUNT = (r"(?:\d+|una|dos|tres|cuatro|duas|tr[êe]s|quatro|deux|trois|quatre|zwei|drei|vier|due|tre|quattro|dwa|trzy|"
          r"cztery)")
# how often, in Spanish, Portuguese, French, German, Italian, Polish, and Hinglish, Tagalog and Malay
_HOW_OFTEN = re.compile(
    r"\b(?:"
    rf"tod[oa]s\s+(?:los|las|os|as)\s+(?:d[íi]as|semanas|mañanas|noches|tardes|manh[ãa]s|noites|fins de semana|"
    rf"fines de semana|{_ES_DAYS}|{_PT_DAYS})|"
    rf"(?:cada|toda)\s+(?:d[íi]a|semana|mañana|noche|manh[ãa]|noite|{_ES_DAYS}|{_PT_DAYS})|"
    rf"(?:los|aos|nos)\s+{_ES_DAYS}|"
    rf"{_COUNT}\s*(?:x|veces|vezes|fois|mal|volte|razy)\s+(?:a|al|por|par|pro|die|in der|alla|a|w)\s+"
    r"(?:la\s+)?(?:semana|semaine|woche|settimana|tygodniu|mes|m[êe]s|mois|monat|mese)|"
    rf"tous\s+les\s+(?:jours|matins|soirs|week-ends|{_FR_DAYS})|chaque\s+(?:jour|semaine|matin|soir|{_FR_DAYS})|"
    rf"jeden\s+(?:Morgen|Tag|Abend|{_DE_DAYS})|jede\s+Woche|(?:zweimal|dreimal|einmal)\s+(?:pro|die|in der)\s+Woche|"
    r"(?:montags|dienstags|mittwochs|donnerstags|freitags|samstags|sonntags)|"
    rf"ogni\s+(?:giorno|mattina|sera|settimana|{_IT_DAYS})|tutti\s+i\s+(?:giorni|{_IT_DAYS})|"
    rf"il\s+{_IT_DAYS}(?:\s+e\s+{_IT_DAYS})?(?:\s+(?:sera|mattina|pomeriggio))?|"
    r"codziennie|co\s+(?:tydzie[ńn]|rano|wiecz[óo]r|niedziel[ęe]|sobot[ęe])|"
    r"roz\s+(?:subah|shaam|raat)?|har\s+(?:din|roz|subah|shaam|hafte)|araw[- ]araw|tuwing\s+\w+|"
    r"setiap\s+(?:hari|minggu|pagi)"
    r")\b", re.IGNORECASE)
# someone else's routine: a relative or a friend named before it in the clause, in these languages and English
_SOMEONE_ELSE = re.compile(
    r"\b(?:mi|mis|meu|minha|meus|minhas|mon|ma|mes|mein|meine|meinen|mio|mia|miei|mój|moja|moje|my|his|her|their)\s+"
    r"(?:\w+\s+)?(?:herman[oa]s?|hij[oa]s?|espos[oa]|marido|mujer|novi[oa]|pap[áa]|mam[áa]|irm[ãa]o?|filh[oa]s?|"
    r"m[ãa]e|pai|fr[èe]re|s(?:œ|oe)ur|fils|fille|mari|femme|copain|copine|p[èe]re|m[èe]re|Bruder|Schwester|Sohn|"
    r"Tochter|Mann|Frau|Freund(?:in)?|Vater|Mutter|fratello|sorella|figli[oa]?|marito|moglie|ragazz[oa]|padre|madre|"
    r"brat|siostra|syn|c[óo]rka|m[ąa][żz]|[żz]ona|sister|brother|son|daughter|husband|wife|friend|kids?|mum|mom|dad)\b|"
    r"\b(?:bhai|behen|didi|bhaiya|papa|mummy|beta|beti|kuya|ate|anak|adik|kakak)\b", re.IGNORECASE)
# where the clause ends: a question or request after a comma, or the sentence's end
_CLAUSE_END = re.compile(r"\s*(?:[,;:?!.]|\s-\s|\s+(?:what|which|how|any|can|could|pls|please|qué|cómo|"
                         r"quel(?:le)?s?|comment|was|wie|welche|cosa|jak|co)\b)", re.IGNORECASE)
_CLAUSE_START = re.compile(r"(?:^|[,;:?!.]\s*|\s-\s)(?=[^,;:?!.]*$)")


def routines_said(text: str) -> list[tuple[int, int, str]]:
    """(start, end, clause) for each routine the text says in another language than English."""
    out: list[tuple[int, int, str]] = []
    for m in _HOW_OFTEN.finditer(text):
        begin = _CLAUSE_START.search(text, 0, m.start())
        start = begin.end() if begin else 0
        stop = _CLAUSE_END.search(text, m.end())
        end = stop.start() if stop else len(text)
        clause = text[start:end].strip()
        if (not clause or len(clause.split()) > ROUTINE_MAX_WORDS or _SOMEONE_ELSE.search(text[start:m.start()])
                or any(s <= start < e for s, e, _c in out)):
            continue
        at = text.find(clause, start)
        out.append((at, at + len(clause), clause))
    return out
