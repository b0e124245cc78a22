from mnemo.domain.sensitive import find_sensitive, iban_valid, luhn_valid, redact


def test_luhn_accepts_real_card_numbers_and_rejects_others() -> None:
    assert luhn_valid("4111111111111111")
    assert luhn_valid("5500005555555559")
    assert not luhn_valid("4111111111111112")


def test_iban_checksum() -> None:
    assert iban_valid("GB82 WEST 1234 5698 7654 32")
    assert iban_valid("DE89370400440532013000")
    assert not iban_valid("GB82 WEST 1234 5698 7654 33")


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
