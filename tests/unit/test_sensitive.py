from mnemo.domain.sensitive import find_sensitive, iban_valid, luhn_valid, redact


def test_luhn_accepts_real_card_numbers_and_rejects_others() -> None:
    assert luhn_valid("4111111111111111")
    assert luhn_valid("5500005555555559")
    assert not luhn_valid("4111111111111112")


def test_iban_checksum() -> None:
    assert iban_valid("GB82 WEST 1234 5698 7654 32")
    assert iban_valid("DE89370400440532013000")
    assert not iban_valid("GB82 WEST 1234 5698 7654 33")


def test_an_iban_has_its_countrys_length() -> None:
    """The checksum alone passes one string in 97: "de42e16b043f4ba4838194", the start of a uuid4 hex, is
    22 characters and checksum-valid under Germany; cut to 16 ("be98b3f010b2492a") it was a Belgian one."""
    assert iban_valid("BE68 5390 0754 7034")
    assert iban_valid("NO93 8601 1117 947")
    assert iban_valid("FR14 2004 1010 0505 0001 3M02 606")
    assert not iban_valid("DE42E16B043F4BA48381942")  # checksum-valid at 23 too; Germany's are 22
    assert find_sensitive("send it to DE89370400440532013000please")[0].end == len("send it to ") + 22


def test_ids_a_program_made_are_no_card_and_no_iban() -> None:
    """A uuid or a digest has digit runs that pass Luhn and starts that pass an IBAN's checksum (one uuid4 in
    ~230 before); as a LangGraph store's key in metadata it was refused as a secret. A run the id's hex letters
    enclose, or one no card network starts, is the id's; the same digits as a card stay a card."""
    import hashlib
    import random
    import uuid

    for found in ("5dce3b5b1f4547618064542866526f0d", "3d6f2a8689644888937abf1cbfee428f",
                  "de42e16b043f4ba483819425f17bea07", "ad099a41c4084736a95ec0b17acf6009",
                  "0bf87511-9814-4206-a303-d03c9a1a8aff", "5DCE3B5B1F4547618064542866526F0D"):
        assert find_sensitive(f"store key {found}") == [], found
    assert find_sensitive("card 8689644888937 please")  # the run from the second id, on its own
    assert find_sensitive("x4111111111111111y")
    rng = random.Random(7)
    ids = [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(5000)]
    ids += [i.replace("-", "") for i in ids] + [hashlib.sha1(i.encode()).hexdigest() for i in ids]
    refused = sum(bool(find_sensitive(i)) for i in ids)
    assert refused <= len(ids) // 1000, refused  # one in ~3,500: a card network's digits at the id's edge


def test_a_card_or_iban_dressed_as_an_id_is_still_found() -> None:
    """The ids' exemption is no way past the screen: a card or IBAN padded with hex letters to an id's length,
    or set in a uuid's dashes, is found (helper-100's review)."""
    for text in ("4111111111111111abcdefabcdefabcd", "ref abcdefab-4111-1111-1111-1111abcdefab",
                 "4111111111111111" + "a" * 24, "x_4111111111111111abcdefabcdefabcd_y"):
        assert [f.kind for f in find_sensitive(text)] == ["payment_card"], text
    for text in ("de89370400440532013000abcdef0123", "BE68539007547034deadbeefdeadbeef"):
        assert [f.kind for f in find_sensitive(text)] == ["iban"], text


def test_card_number_is_redacted_but_the_sentence_survives() -> None:
    text, kinds = redact("My card is 4111 1111 1111 1111 and I live in Porto.")
    assert "4111" not in text
    assert kinds == ["payment_card"]
    assert "I live in Porto." in text


def test_an_order_number_that_fails_luhn_is_kept() -> None:
    text, kinds = redact("My order number is 1234 5678 9012 3456.")
    assert kinds == []
    assert "1234 5678 9012 3456" in text


def test_secrets_of_many_kinds_are_found() -> None:
    samples = {
        "aws_access_key": "the key AKIAIOSFODNN7EXAMPLE is ours",
        "api_key": "use sk-proj-abcdefghijklmnopqrstuvwx123 for it",
        "github_token": "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 here",
        "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "private_key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
        "password": "my password is hunter2!",
        "us_ssn": "my SSN 123-45-6789",
        "iban": "pay to DE89 3704 0044 0532 0130 00 please",
        "connection_string": "postgres://admin:s3cret@db.internal:5432/app",
    }
    for kind, text in samples.items():
        found = find_sensitive(text)
        assert found, kind
        redacted, _ = redact(text)
        assert "[REDACTED:" in redacted, kind


def test_government_id_needs_its_keyword_and_digits() -> None:
    assert find_sensitive("my passport number is X1234567")
    assert not find_sensitive("I have a passport and I like travel")


def test_plain_text_has_no_findings() -> None:
    assert find_sensitive("I love hiking in the Alps with my two dogs, every 3 weeks.") == []


def _screened_as_before(texts: list[str]) -> tuple[bool, int | None]:
    """The rule before sensitive_item: each string alone, then all of them joined with a space."""
    from mnemo.domain.sensitive import contains_sensitive

    alone = next((i for i, t in enumerate(texts) if contains_sensitive(t)), None)
    return alone is not None or contains_sensitive(" ".join(texts)), alone


def test_one_screen_of_the_joined_strings_finds_what_each_alone_and_together_did() -> None:
    """sensitive_item screens a field's strings joined once (and a string alone only where a digit is at an edge
    it shares): on the secrets corpus cut into pieces, beside strings ending or starting with digits, it finds
    exactly what screening each string alone and then the joined text found, and names the same string."""
    import random

    from mnemo.domain.sensitive import sensitive_item
    from tests.eval.secrets_corpus import corpus

    rng = random.Random(5)
    neighbours = ["Order 1234", "ok", "Room 12", "four one", "call me at 5", "5", "", "fine.", "DE89"]
    cases = 0
    for _, _, message, _ in corpus():
        words = message.split(" ")
        cuts = sorted(rng.sample(range(1, len(words)), min(len(words) - 1, rng.randint(0, 3))))
        pieces = [" ".join(words[a:b]) for a, b in zip([0, *cuts], [*cuts, len(words)], strict=True)]
        for texts in (pieces, [rng.choice(neighbours), *pieces], [*pieces, rng.choice(neighbours)],
                      [rng.choice(neighbours), message, rng.choice(neighbours)]):
            found, alone = _screened_as_before(texts)
            assert sensitive_item({"confirmed_facts": texts}) == (("confirmed_facts", alone) if found else None), texts
            cases += 1
    assert cases == 832
