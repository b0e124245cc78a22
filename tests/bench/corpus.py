"""A synthetic but varied user: fact-sized memories and questions, generated deterministically."""

from __future__ import annotations

import random

FOODS = ["sushi", "ramen", "tacos", "pho", "paella", "falafel", "curry", "dumplings", "lasagna", "ceviche",
         "kimchi stew", "pad thai", "goulash", "risotto", "shakshuka", "burritos", "bibimbap", "moussaka"]
PLACES = ["Lisbon", "Kyoto", "Denver", "Nairobi", "Oslo", "Buenos Aires", "Hanoi", "Porto", "Montreal",
          "Seville", "Auckland", "Krakow", "Tbilisi", "Cusco", "Marrakech", "Reykjavik", "Ljubljana"]
HOBBIES = ["bouldering", "watercolor painting", "salsa dancing", "birdwatching", "chess", "sourdough baking",
           "trail running", "woodworking", "kayaking", "calligraphy", "astronomy", "pottery", "surfing",
           "knitting", "photography", "gardening", "fencing", "beekeeping"]
PEOPLE = ["Maria", "Tom", "Aiko", "Luis", "Fatima", "Oskar", "Priya", "Jonas", "Chen", "Amara", "Ivan", "Sofia"]
RELATIONS = ["sister", "brother", "cousin", "best friend", "colleague", "neighbor", "mentor", "aunt"]
TOOLS = ["Python", "Rust", "TypeScript", "Go", "Kotlin", "PostgreSQL", "Kafka", "Terraform", "React", "Django"]
TEMPLATES = [
    "User loves {food} and orders it at least once a week.",
    "User visited {place} in {year} and wants to go back.",
    "User has been practicing {hobby} for {n} years.",
    "User's {relation} {person} lives in {place}.",
    "User is learning {tool} for a side project about {hobby}.",
    "User dislikes {food} because of the texture.",
    "User plans a trip to {place} with {person} next {season}.",
    "User's favorite weekend activity is {hobby} near {place}.",
    "User uses {tool} at work every day.",
    "User gave {person} a book about {hobby} for their birthday.",
    "User met {person} at a {hobby} class in {place}.",
    "User is allergic to {allergen}.",
    "User keeps a journal about {hobby} sessions.",
    "User cooked {food} for {person} last {season}.",
]
QUESTIONS = [
    "What food do I like to order?", "Where did I travel recently?", "How long have I done {hobby}?",
    "Where does my {relation} live?", "What am I learning for my side project?", "Which dishes do I dislike?",
    "Who am I travelling with next {season}?", "What do I like to do on weekends?",
    "Which tools do I use at work?", "What gift did I give {person}?", "Where did I meet {person}?",
    "What am I allergic to?", "Any ideas for a {hobby} weekend near {place}?", "What did I cook for {person}?",
]
ALLERGENS = ["peanuts", "shellfish", "penicillin", "pollen", "latex", "sesame"]
SEASONS = ["spring", "summer", "autumn", "winter"]


def _fill(template: str, rng: random.Random) -> str:
    return template.format(food=rng.choice(FOODS), place=rng.choice(PLACES), year=rng.randint(2010, 2025),
                           hobby=rng.choice(HOBBIES), n=rng.randint(2, 20), relation=rng.choice(RELATIONS),
                           person=rng.choice(PEOPLE), tool=rng.choice(TOOLS), season=rng.choice(SEASONS),
                           allergen=rng.choice(ALLERGENS))


def memories(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < count:
        text = _fill(rng.choice(TEMPLATES), rng)
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


OPENERS = ["", "Quick question: ", "Hey, ", "Remind me, ", "I was wondering, ", "Sorry to ask again, ",
           "Before we start, ", "Honestly, "]


def questions(count: int, seed: int = 11) -> list[str]:
    """Distinct questions (so no two share a cached query embedding)."""
    rng = random.Random(seed)
    out: list[str] = []
    seen: set[str] = set()
    for _ in range(count * 200):
        if len(out) == count:
            break
        text = rng.choice(OPENERS) + _fill(rng.choice(QUESTIONS), rng)
        if text not in seen:
            seen.add(text)
            out.append(text)
    if len(out) < count:
        raise ValueError(f"only {len(out)} distinct questions can be made")
    return out


def chat_messages(count: int, seed: int = 3) -> list[str]:
    """User messages in the first person, as a chat app would post them."""
    rng = random.Random(seed)
    forms = ["I love {food}.", "I live in {place}.", "My {relation} {person} is visiting next week.",
             "I've been doing {hobby} for {n} years.", "I'm allergic to {allergen}.", "I use {tool} at work.",
             "Can you help me plan a trip to {place}?", "What's a good recipe for {food}?",
             "I'm going to {place} next {season}.", "I don't like {food} anymore.", "Thanks, that helps!"]
    return [_fill(rng.choice(forms), rng) for _ in range(count)]
