"""Where the user works, said with the job, as where they live: "I'm a nurse in Phoenix", "I run a small bakery in
Penang", "backend at a fintech in Pune".

Users introduce themselves by their work and its town far more often than by "I live in"; the tagger keeps the
town inside the job ("User's job: primary school headteacher in Leeds.") and stores no home, so a request for
"somewhere near me" finds none. A place closing the job phrase, after "in", is read as the home where the message
names no home itself. Only a place: capitalised words that are no ward, department or field ("nurse in ICU",
"in IT", "in Marketing") and no language ("teaching in English").
"""

from __future__ import annotations

import re

from mnemo.domain.extraction.languages import is_a_language

# the place closing a job phrase: "in" and one to three capitalised words ("in São Paulo", "in Surulere, Lagos",
# "in the Free State"), then the phrase's end
_PLACE_AT_END = re.compile(
    r"\b(?:in|near|outside)\s+(?:the\s+)?(?P<place>[A-ZÀ-Ý][\w'’.-]*(?:(?:\s+|,\s*)[A-ZÀ-Ý][\w'’.-]*){0,2})\W*$")
# capitalised words said after "in" that are no place: wards, departments, fields, schools of thought
_NOT_A_PLACE = frozenset("""
it hr sales marketing finance engineering operations accounts accounting legal support logistics retail
healthcare tech technology education research admin administration management product design data security
procurement compliance paediatrics pediatrics oncology cardiology radiology neurology orthopaedics orthopedics
surgery maternity emergency theatre theatres recovery pharmacy physics chemistry biology maths mathematics
economics law medicine nursing psychology history english science art music drama year reception infrastructure
devops qa r&d pr customer service
""".split())


def home_in_job(job: str) -> str | None:
    """The place a job phrase closes with ("night shift nurse in Phoenix" -> "Phoenix"), or None."""
    m = _PLACE_AT_END.search(job.strip())
    if m is None:
        return None
    place = m.group("place").strip(" ,.")
    words = [w.strip(",.").lower() for w in place.split()]
    if any(w in _NOT_A_PLACE for w in words) or is_a_language(place):
        return None
    if any(len(w) <= 4 and w.isupper() for w in place.replace(",", " ").split()):
        return None  # "ICU", "A&E", "NHS": a ward or a body, no town
    return place
