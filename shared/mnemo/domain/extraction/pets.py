"""A pet the user has just got: "GOT A KITTEN 🐱🐱 shes called miso", "we adopted a greyhound, Horace".

The tagger learned pets from "our dog Bolt" and "I have a cat named Tom"; news of a new one, shouted or in
fragments, it reads as nothing. The kinds of pet are few and the ways of saying one was got fewer: an exact rule.
Only the user's own (said by "I"/"we" or with no one else named before it): "my sister got a puppy" is hers.
"""

from __future__ import annotations

import re

_KIND = (r"(?P<kind>kitten|kitty|cat|puppy|pup|dog|hamster|rabbit|bunny|guinea pig|parrot|budgie|cockatiel|"
         r"tortoise|turtle|snake|gecko|lizard|ferret|horse|pony|goldfish|axolotl|rat|chinchilla|hedgehog|"
         r"greyhound|lurcher|labrador|spaniel|collie|terrier|retriever|poodle|beagle|dachshund|husky)")
_GOT = re.compile(
    r"(?:^|[.!?]\s+|\b(?:i|we|i['’]ve|we['’]ve|ive|finally|just|so)\s+)"
    r"(?:(?:finally|just|officially)\s+)?(?:got|adopted|rescued|bought|brought home|took home|welcomed|have)\s+"
    r"(?:a|an|another|our|my)\s+(?:new\s+|little\s+|baby\s+|rescue\s+|young\s+)?(?:\w+\s+)?" + _KIND + r"s?\b",
    re.IGNORECASE)
# the name said after it in the same sentence: "shes called miso", "named Horace", "her name is Bolacha", ", Rex"
_NAMED = re.compile(r"^[^.!?]{0,50}?(?:[.!?]+\s+[^.!?]{0,12}?)?\b(?:called|named|name is|name's|name:)\s*"
                    r"(?P<name>[^\W\d_][\w'-]*)", re.IGNORECASE)
_NO_NAME = frozenset({"a", "an", "the", "him", "her", "it", "them", "after", "something", "nothing"})


# any word of an animal kept as a pet, in the languages users switch to; a pet the tagger read where the message
# names no animal and the value is no name ("a wee boat", "my little panadería", "el laburo") is no pet
ANY_ANIMAL = (
    _KIND[len("(?P<kind>"):-1] + r"|pets?|doggo|pupper|kitties|dogs|cats|fish|bird|birds|chickens?|hens?|ducks?|"
    r"goats?|sheep|pigs?|cow|cows|donkey|alpaca|llama|mouse|mice|gerbil|cockatoo|macaw|canary|tarantula|spider|"
    r"frog|bearded dragon|python|boa|corgi|pug|shih tzu|chihuahua|schnauzer|doodle|\w+doodle|shepherd|bulldog|"
    r"whippet|staffy|staffie|pitbull|pit bull|rottweiler|boxer|mutt|tabby|moggy|kelpie|iguana|camel|parakeet|"
    r"lovebird|finch|pigeon|goose|geese|quail|snail|crab|axolotl|newt|toad|cockerel|rooster|ram|ewe|lamb|calf|"
    r"mare|stallion|foal|pony|mule|dachshund|labradoodle|cockapoo|sausage dog|greyhound|collie|"
    r"perr[oa]s?|perrit[oa]s?|gat[oa]s?|gatit[oa]s?|cachorr[oa]s?|chien|chienne|chat|chatte|hund|katze|mascota")
# ... as a whole word, one or many
_AN_ANIMAL_NAMED = re.compile(r"\b(?:" + ANY_ANIMAL + r")(?:e?s)?\b", re.IGNORECASE)


# what is done for or by a pet: a name alone is a pet's where the message speaks of such things ("Biscuit needs
# the vet"), not where it is a child's ("Lucas eats everything")
_PET_CARE = re.compile(r"\b(?:vet|vets|walk|walks|walked|walkies|bark\w*|meow\w*|purr\w*|litter|leash|lead|"
                       r"kennel|groom\w*|paws?|tail|fur|treats|kibble|adopt\w*|rescue\w*|neuter\w*|spay\w*|"
                       r"vaccin\w*|jabs|fetch|cage|tank|hutch|stable|flea\w*|worming|chew\w*)\b", re.IGNORECASE)


def names_an_animal(value: str, message: str) -> bool:
    """The message names an animal, or the pet's value is a name (a capital: "Pickle") in a message that speaks of
    caring for a pet."""
    if _AN_ANIMAL_NAMED.search(message):
        return True
    return any(word[:1].isupper() for word in value.split()) and bool(_PET_CARE.search(message))


# the user's pet by its name, in the languages users switch to, which the tagger (trained on "our dog Bolt") does not
# read: "notre chien Caramel", "mi perra Luna", "unser Hund Bello", and Tagalog's "si" before a name ("may kitten na
# ako, si Kiwi")
_KINDS_ABROAD = {"chien": "dog", "chienne": "dog", "chiot": "puppy", "chat": "cat", "chatte": "cat", "chaton": "kitten",
                 "perro": "dog", "perra": "dog", "perrito": "puppy", "perrita": "puppy", "gato": "cat", "gata": "cat",
                 "gatito": "kitten", "gatita": "kitten", "hund": "dog", "hündin": "dog", "katze": "cat", "kater": "cat",
                 "cachorro": "dog", "cachorra": "dog", "gatinho": "kitten", "gatinha": "kitten", "cane": "dog",
                 "gatto": "cat", "gatta": "cat", "aso": "dog", "pusa": "cat", "tuta": "puppy", "kuting": "kitten"}
_MINE_ABROAD = re.compile(
    r"(?i:\b(?:notre|mon|ma|mi|nuestro|nuestra|mein|meine|meinen|unser|unsere|unseren|meu|minha|nosso|nossa|"
    r"il\s+mio|la\s+mia|il\s+nostro|la\s+nostra)\s+(?P<kind>" + "|".join(_KINDS_ABROAD) + r"))\s+"
    r"(?P<name>[A-ZÀ-Ý][\w'-]+)")
# (the user's by "ako" or "kami" right after the kind: "may cat yung kapatid ko, si Ming" is the sibling's)
_SI_NAMED = re.compile(
    r"(?i:\b(?:(?:may|meron)\s+(?:(?:na|akong|kaming|bagong|new)\s+){0,2})(?P<kind>kitten|puppy|cat|dog|aso|pusa|tuta|"
    r"kuting)\s+(?:na\s+)?(?:ako|kami)\b)[^.!?]{0,30}?\bsi\s+(?P<name>[A-ZÀ-Ý][\w'-]+)")


def pets_got(text: str) -> list[tuple[int, int, str]]:
    """(start, end, "kitten named Miso") for each pet the text says the user just got."""
    out = []
    for m in _GOT.finditer(text):
        kind = m.group("kind").lower()
        named = _NAMED.match(text[m.end():])
        name = named.group("name") if named and named.group("name").lower() not in _NO_NAME else None
        value = f"{kind} named {name[0].upper() + name[1:]}" if name else kind
        out.append((m.start("kind"), m.end() + (named.end() if named else 0), value))
    for pattern in (_MINE_ABROAD, _SI_NAMED):
        for m in pattern.finditer(text):
            kind = m.group("kind").lower()
            out.append((m.start("kind"), m.end("name"), f"{_KINDS_ABROAD.get(kind, kind)} named {m.group('name')}"))
    return sorted(out)


# a pet's value that is no pet: a person ("live w my mom n 2 cats": "User has a pet: mom."), or the words that
# come before a pet's name ("her name is Mimi": "User has a pet: her name.")
_NO_PET = re.compile(
    r"^(?:(?:my|our|the|his|her|its|their)\s+)?(?:mom|mum|mam|mommy|dad|daddy|mother|father|parents?|wife|husband|"
    r"hubby|partner|son|daughter|kids?|child|children|baby|babies|sister|brother|siblings?|friends?|roommate|"
    r"flatmate|housemate|boyfriend|girlfriend|bf|gf|grandma|grandpa|nan|nana|granny|family|"
    r"(?:(?:her|his|its|their|the|my|our)\s+)?(?:[\w'’]+\s+)?name)$", re.IGNORECASE)
_NAME_WORDS_FIRST = re.compile(r"^(?:called|named|name(?:d|s)?\s+is|is\s+called)\s+", re.IGNORECASE)


def pet_value(value: str) -> str | None:
    """The pet's value without the words before a name ("called Nala" -> "Nala"), or None for no pet (a person, or
    "her name" alone)."""
    cleaned = _NAME_WORDS_FIRST.sub("", value.strip())
    return None if not cleaned or _NO_PET.match(cleaned) else cleaned
