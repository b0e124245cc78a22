"""The wrapped data keys in their own table (moto): keys from before it are moved over on first use, and an
erase removes every copy, so neither table's backups nor a later move bring a key back."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from mnemo.adapters.aws.dynamo_state import DynamoTable, create_table
from mnemo.adapters.aws.kms_vault import KmsKeyVault
from mnemo.errors import ErasureUnderway

REGION = "eu-west-1"


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, Any, DynamoTable, DynamoTable]]:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        dynamodb = boto3.client("dynamodb", region_name=REGION)
        kms = boto3.client("kms", region_name=REGION)
        create_table(dynamodb, "state")
        create_table(dynamodb, "keys")
        yield dynamodb, kms, DynamoTable(dynamodb, "state"), DynamoTable(dynamodb, "keys")


def test_a_key_from_the_state_table_moves_to_the_key_table(aws: tuple[Any, Any, DynamoTable, DynamoTable]) -> None:
    _, kms, state, keys = aws
    key_id = kms.create_key()["KeyMetadata"]["KeyId"]
    before = KmsKeyVault(kms, state, key_id).data_key("t", "u")  # a deployment from before the key table
    assert state.get("t#u", "DATAKEY") is not None
    vault = KmsKeyVault(kms, keys, key_id, cache_seconds=0, legacy=state)
    assert vault.data_key("t", "u") == before
    assert state.get("t#u", "DATAKEY") is None
    assert keys.get("t#u", "DATAKEY") is not None
    assert vault.data_key("t", "u") == before  # from the key table now


def test_new_keys_go_to_the_key_table_only(aws: tuple[Any, Any, DynamoTable, DynamoTable]) -> None:
    _, kms, state, keys = aws
    vault = KmsKeyVault(kms, keys, kms.create_key()["KeyMetadata"]["KeyId"], legacy=state)
    vault.data_key("t", "u")
    assert keys.get("t#u", "DATAKEY") is not None
    assert state.query("t#u") == []


def test_an_erase_removes_the_key_from_both_tables(aws: tuple[Any, Any, DynamoTable, DynamoTable]) -> None:
    _, kms, state, keys = aws
    key_id = kms.create_key()["KeyMetadata"]["KeyId"]
    old = KmsKeyVault(kms, state, key_id).data_key("t", "u")
    vault = KmsKeyVault(kms, keys, key_id, cache_seconds=0, legacy=state)
    vault.destroy("t", "u")  # erased before the key was ever moved
    assert state.get("t#u", "DATAKEY") is None
    assert "wrapped" not in (keys.get("t#u", "DATAKEY") or {})  # the erase's mark stands in its place
    with pytest.raises(ErasureUnderway):  # no key while the erase has not finished
        vault.data_key("t", "u")
    vault.finish_erase("t", "u")
    assert keys.get("t#u", "DATAKEY") is None
    assert vault.data_key("t", "u") != old  # a new user with that id gets a new key


def test_a_move_that_loses_the_race_with_an_erase_brings_nothing_back(
        aws: tuple[Any, Any, DynamoTable, DynamoTable]) -> None:
    dynamodb, kms, state, keys = aws
    key_id = kms.create_key()["KeyMetadata"]["KeyId"]
    old = KmsKeyVault(kms, state, key_id).data_key("t", "u")
    vault = KmsKeyVault(kms, keys, key_id, cache_seconds=0, legacy=state)
    # the mover read the old copy, then an erase removed it before the move was written
    legacy_item = state.get("t#u", "DATAKEY")
    state.delete("t#u", "DATAKEY")
    original_get = state.get
    state.get = lambda pk, sk: legacy_item if sk == "DATAKEY" else original_get(pk, sk)  # type: ignore[method-assign]
    assert vault.data_key("t", "u") != old
    assert keys.get("t#u", "DATAKEY") is not None  # a new key, not the erased one
    assert dynamodb.scan(TableName="state")["Items"] == []


class CountingKms:
    """The real (moto) KMS client, counting the unwraps."""

    def __init__(self, kms: Any) -> None:
        self._kms = kms
        self.decrypts = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._kms, name)

    def decrypt(self, **kwargs: Any) -> Any:
        self.decrypts += 1
        return self._kms.decrypt(**kwargs)


def test_a_warm_function_uses_no_key_another_function_erased(aws: tuple[Any, Any, DynamoTable, DynamoTable]) -> None:
    _, kms, _, keys = aws
    key_id = kms.create_key()["KeyMetadata"]["KeyId"]
    warm, other = KmsKeyVault(kms, keys, key_id), KmsKeyVault(kms, keys, key_id)  # two Lambda containers
    shredded = warm.data_key("t", "u")  # kept for cache_seconds (300)
    other.destroy("t", "u")
    other.finish_erase("t", "u")
    warm.new_request()
    assert warm.existing_key("t", "u") is None  # the erased user has no key, here too
    renewed = other.data_key("t", "u")  # the same user id writes again
    warm.new_request()
    assert warm.data_key("t", "u") == renewed != shredded  # what it seals now, the other function opens
    other.destroy("t", "u")  # an erase under way when the next request starts: nothing may be sealed
    warm.new_request()
    with pytest.raises(ErasureUnderway):
        warm.data_key("t", "u")


def test_each_request_rereads_the_wrapped_key_but_unwraps_it_once(
        aws: tuple[Any, Any, DynamoTable, DynamoTable]) -> None:
    _, kms, _, keys = aws
    counting = CountingKms(kms)
    key_id = kms.create_key()["KeyMetadata"]["KeyId"]
    vault = KmsKeyVault(counting, keys, key_id)
    key = vault.data_key("t", "u")  # made here: nothing to unwrap
    for _ in range(3):
        vault.new_request()
        assert vault.data_key("t", "u") == key
        assert vault.existing_key("t", "u") == key
    assert counting.decrypts == 0
    reads = 0
    original_get = keys.get

    def counted(key_pk: str, sk: str) -> Any:
        nonlocal reads
        reads += 1
        return original_get(key_pk, sk)

    keys.get = counted  # type: ignore[method-assign]
    vault.new_request()
    for _ in range(5):
        vault.data_key("t", "u")
    assert reads == 1  # once per request, not per sealed value
    fresh = KmsKeyVault(counting, keys, key_id)
    assert fresh.existing_key("t", "u") == key
    assert counting.decrypts == 1


def test_the_plaintext_keys_kept_are_bounded_and_expire(aws: tuple[Any, Any, DynamoTable, DynamoTable]) -> None:
    _, kms, _, keys = aws
    counting = CountingKms(kms)
    key_id = kms.create_key()["KeyMetadata"]["KeyId"]
    vault = KmsKeyVault(counting, keys, key_id, cache_seconds=0.2, kept=3)
    made = {user: vault.data_key("t", user) for user in ("a", "b", "c", "d")}
    assert vault.owners() == {("t", "b"), ("t", "c"), ("t", "d")}  # the least recently used went
    time.sleep(0.25)
    vault.new_request()  # the sweep: expired plaintext is dropped, the wrapped copy kept
    assert all(held.key is None for held in vault._cache.values())
    assert vault.existing_key("t", "d") == made["d"]
    assert counting.decrypts == 1  # unwrapped again, once
