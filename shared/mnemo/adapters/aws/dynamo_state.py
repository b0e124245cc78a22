"""Small per-user state in one DynamoDB table: profiles, settings, sessions, tuned weights.

Key design (every key starts with tenant and user, DESIGN.md section 7):
- pk = "<tenant>#<user>", sk = "PROFILE" | "SETTINGS" | "SESSION#<id>"; tenant-wide items use the
  user "_tenant" (sk = "WEIGHTS#<version>"). Ids are restricted to [A-Za-z0-9._:@-] by the API, so
  "#" cannot occur inside them.
- Items that expire carry ``ttl`` (epoch seconds) for DynamoDB's TTL and are also hidden by the
  code: DynamoDB deletes expired items up to days late (and moto never does).
- User text is sealed with the user's data key before it reaches the table.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from mnemo.adapters.aws.errors import aws_errors
from mnemo.clock import iso
from mnemo.crypto import UserCipher
from mnemo.domain.models import Profile, SessionState, TunedWeights, UserSettings
from mnemo.errors import BackendUnavailable
from mnemo.ports import StoredProfile

TENANT_WIDE = "_tenant"
# DynamoDB's limit of actions in one TransactWriteItems
TRANSACTION_LIMIT = 100


def pk(tenant_id: str, user_id: str) -> str:
    return f"{tenant_id}#{user_id}"


class DynamoTable:
    """The thin layer every DynamoDB adapter shares: keyed get/put/delete/query with error translation."""

    def __init__(self, client: Any, table_name: str) -> None:
        self.client = client
        self.table = table_name
        self._units = threading.local()

    # -- a unit of work: writes that commit together in one TransactWriteItems
    @contextmanager
    def unit(self) -> Iterator[None]:
        """Writes staged inside (``stage``) commit together when the outermost unit ends without an
        error, in one transaction (several of up to 100 actions each when there are more, puts first,
        deletes last); an error discards them. Reads inside do not see them: only what nothing reads
        back in the same unit is staged (audit events, versions, the write journal's clearing)."""
        depth = getattr(self._units, "depth", 0)
        if depth == 0:
            self._units.actions = []
        self._units.depth = depth + 1
        try:
            yield
        except BaseException:
            if depth == 0:
                self._units.actions = []
            raise
        finally:
            self._units.depth = depth
        if depth == 0:
            actions, self._units.actions = self._units.actions, []
            self.commit(actions)

    def in_unit(self) -> bool:
        return getattr(self._units, "depth", 0) > 0

    def stage(self, action: dict[str, Any]) -> None:
        """One TransactWriteItems action ({"Put": ...} or {"Delete": ...}, table name included): kept
        for the open unit's commit, or written now when no unit is open."""
        if self.in_unit():
            self._units.actions.append(action)
            return
        with aws_errors("DynamoDB"):
            if "Put" in action:
                self.client.put_item(**action["Put"])
            else:
                self.client.delete_item(**action["Delete"])

    def put_action(self, item: dict[str, Any]) -> dict[str, Any]:
        return {"Put": {"TableName": self.table, "Item": item}}

    def delete_action(self, key_pk: str, sk: str) -> dict[str, Any]:
        return {"Delete": {"TableName": self.table, "Key": {"pk": {"S": key_pk}, "sk": {"S": sk}}}}

    def commit(self, actions: list[dict[str, Any]]) -> None:
        """Write ``actions`` together: one transaction per 100, puts before deletes (the deletes clear
        the journal entries that describe the puts, so a failure between two leaves them to repair)."""
        # one action per item (DynamoDB refuses two on one item in a transaction): the last one wins
        latest: dict[tuple[str, str, str], dict[str, Any]] = {}
        for action in actions:
            body = next(iter(action.values()))
            key = body.get("Key") or body["Item"]
            latest.pop((body["TableName"], key["pk"]["S"], key["sk"]["S"]), None)
            latest[(body["TableName"], key["pk"]["S"], key["sk"]["S"])] = action
        kept = list(latest.values())
        ordered = [a for a in kept if "Delete" not in a] + [a for a in kept if "Delete" in a]
        for start in range(0, len(ordered), TRANSACTION_LIMIT):
            chunk = ordered[start:start + TRANSACTION_LIMIT]
            with aws_errors("DynamoDB"):
                self.client.transact_write_items(TransactItems=chunk)

    def get(self, key_pk: str, sk: str) -> dict[str, Any] | None:
        with aws_errors("DynamoDB"):
            item: dict[str, Any] | None = self.client.get_item(
                TableName=self.table, Key={"pk": {"S": key_pk}, "sk": {"S": sk}}, ConsistentRead=True).get("Item")
        return item

    def put(self, item: dict[str, Any], **conditions: Any) -> None:
        with aws_errors("DynamoDB"):
            self.client.put_item(TableName=self.table, Item=item, **conditions)

    def update(self, key_pk: str, sk: str, expression: str, values: dict[str, Any],
               names: dict[str, str] | None = None, returns: str = "NONE") -> dict[str, Any]:
        """One atomic UpdateItem (creating the item when missing); the attributes ``returns`` asks for."""
        with aws_errors("DynamoDB"):
            result = self.client.update_item(
                TableName=self.table, Key={"pk": {"S": key_pk}, "sk": {"S": sk}}, UpdateExpression=expression,
                ReturnValues=returns, **_expression(names, values))
        attributes: dict[str, Any] = result.get("Attributes", {})
        return attributes

    def put_if(self, item: dict[str, Any], condition: str, names: dict[str, str] | None = None,
               values: dict[str, Any] | None = None) -> bool:
        """Conditional put; False (not an error) when the condition does not hold."""
        return self._conditional(self.client.put_item, Item=item, ConditionExpression=condition,
                                 **_expression(names, values))

    def delete_if(self, key_pk: str, sk: str, condition: str, names: dict[str, str] | None = None,
                  values: dict[str, Any] | None = None) -> bool:
        """Conditional delete; False when the item is not the one the caller meant."""
        return self._conditional(self.client.delete_item, Key={"pk": {"S": key_pk}, "sk": {"S": sk}},
                                 ConditionExpression=condition, **_expression(names, values))

    def update_if(self, key_pk: str, sk: str, update: str, condition: str, names: dict[str, str] | None = None,
                  values: dict[str, Any] | None = None, returns: str = "ALL_NEW") -> dict[str, Any] | None:
        """Conditional update; the item as written (or as ``returns`` asks), or None when the condition
        does not hold."""
        written: dict[str, Any] = {}

        def call(**kwargs: Any) -> None:
            written.update(self.client.update_item(**kwargs).get("Attributes", {}))

        if not self._conditional(call, Key={"pk": {"S": key_pk}, "sk": {"S": sk}}, UpdateExpression=update,
                                 ConditionExpression=condition, ReturnValues=returns, **_expression(names, values)):
            return None
        return written

    def _conditional(self, call: Any, **kwargs: Any) -> bool:
        try:
            with aws_errors("DynamoDB"):
                call(TableName=self.table, **kwargs)
        except BackendUnavailable as exc:
            cause = exc.__cause__
            if isinstance(cause, ClientError) and \
                    cause.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                return False
            raise
        return True

    def delete(self, key_pk: str, sk: str) -> None:
        with aws_errors("DynamoDB"):
            self.client.delete_item(TableName=self.table, Key={"pk": {"S": key_pk}, "sk": {"S": sk}})

    def query(self, key_pk: str, sk_prefix: str = "", newest_first: bool = False,
              limit: int | None = None) -> list[dict[str, Any]]:
        args: dict[str, Any] = {
            "TableName": self.table, "ConsistentRead": True, "ScanIndexForward": not newest_first,
            "KeyConditionExpression": "pk = :pk" + (" AND begins_with(sk, :sk)" if sk_prefix else ""),
            "ExpressionAttributeValues": {":pk": {"S": key_pk}, **({":sk": {"S": sk_prefix}} if sk_prefix else {})},
        }
        if limit:
            args["Limit"] = limit
        items: list[dict[str, Any]] = []
        with aws_errors("DynamoDB"):
            while True:
                page = self.client.query(**args)
                items.extend(page.get("Items", []))
                if not page.get("LastEvaluatedKey") or (limit and len(items) >= limit):
                    return items[:limit] if limit else items
                args["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def delete_partition(self, key_pk: str) -> None:
        for item in self.query(key_pk):
            self.delete(key_pk, item["sk"]["S"])


def _expression(names: dict[str, str] | None, values: dict[str, Any] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if names:
        out["ExpressionAttributeNames"] = names
    if values:
        out["ExpressionAttributeValues"] = values
    return out


def expired(item: dict[str, Any], now: datetime) -> bool:
    return "ttl" in item and int(item["ttl"]["N"]) <= int(now.timestamp())


class DynamoProfileStore:
    """One item per user (sk "PROFILE"): the derived profile sealed (``sealed``), the generation
    it was built from (``built_at``), the current ``generation`` (an atomic counter), its
    ``valid_until``, and the app's ``custom`` fields sealed on their own."""

    def __init__(self, table: DynamoTable, cipher: UserCipher) -> None:
        self._t = table
        self._cipher = cipher

    def _open(self, tenant_id: str, user_id: str, item: dict[str, Any]) -> Profile | None:
        # without a key (an erase not finished) nothing sealed is readable; the generation still is
        if "sealed" not in item or self._cipher.existing_key(tenant_id, user_id) is None:
            return None
        return Profile.model_validate_json(
            self._cipher.open(tenant_id, user_id, "profile", "profile", item["sealed"]["B"]))

    def _custom(self, tenant_id: str, user_id: str, item: dict[str, Any]) -> dict[str, str]:
        if "custom" in item:
            if self._cipher.existing_key(tenant_id, user_id) is None:
                return {}
            return dict(json.loads(self._cipher.open(tenant_id, user_id, "profile", "custom", item["custom"]["B"])))
        legacy = self._open(tenant_id, user_id, item)  # an item from before the app's fields were kept apart
        return dict(legacy.custom) if legacy else {}

    def get(self, tenant_id: str, user_id: str) -> StoredProfile:
        item = self._t.get(pk(tenant_id, user_id), "PROFILE")
        if item is None:
            return StoredProfile()
        profile = self._open(tenant_id, user_id, item)
        if profile is not None and profile.custom:
            profile = profile.model_copy(update={"custom": {}})
        return StoredProfile(
            profile=profile, built_at=int(item["built_at"]["N"]) if "built_at" in item else -1,
            generation=int(item["generation"]["N"]) if "generation" in item else 0,
            valid_until=datetime.fromisoformat(item["valid_until"]["S"]) if "valid_until" in item else None,
            custom=self._custom(tenant_id, user_id, item))

    def put(self, tenant_id: str, user_id: str, profile: Profile, built_at: int, valid_until: datetime | None) -> None:
        derived = profile.model_copy(update={"custom": {}})
        sealed = self._cipher.seal(tenant_id, user_id, "profile", "profile", derived.model_dump_json().encode())
        values: dict[str, Any] = {":s": {"B": sealed}, ":b": {"N": str(built_at)}}
        expression = "SET sealed = :s, built_at = :b"
        if valid_until is not None:
            expression += ", valid_until = :v"
            values[":v"] = {"S": iso(valid_until)}
        else:
            expression += " REMOVE valid_until"
        # only if the build is still current (no row counts as generation 0), and only these
        # attributes: the generation and the app's fields stay as they are
        condition = "generation = :b" if built_at else "attribute_not_exists(generation) OR generation = :b"
        old = self._t.update_if(pk(tenant_id, user_id), "PROFILE", expression, condition, values=values,
                                returns="ALL_OLD")
        if old is None:
            return  # overtaken by a change (or an erase) since the build began
        if "sealed" in old and "custom" not in old:
            legacy = self._custom(tenant_id, user_id, old)
            if legacy:
                self._t.update(pk(tenant_id, user_id), "PROFILE", "SET custom = if_not_exists(custom, :c)",
                               {":c": {"B": self._seal_custom(tenant_id, user_id, legacy)}})

    def _seal_custom(self, tenant_id: str, user_id: str, custom: dict[str, str]) -> bytes:
        return self._cipher.seal(tenant_id, user_id, "profile", "custom", json.dumps(custom).encode())

    def put_custom(self, tenant_id: str, user_id: str, custom: dict[str, str]) -> None:
        self._t.update(pk(tenant_id, user_id), "PROFILE", "SET custom = :c",
                       {":c": {"B": self._seal_custom(tenant_id, user_id, custom)}})

    def invalidate(self, tenant_id: str, user_id: str) -> None:
        self._t.update(pk(tenant_id, user_id), "PROFILE", "ADD generation :one", {":one": {"N": "1"}})

    def delete_user(self, tenant_id: str, user_id: str) -> None:
        self._t.delete(pk(tenant_id, user_id), "PROFILE")


class DynamoSettingsStore:
    def __init__(self, table: DynamoTable) -> None:
        self._t = table

    def get(self, tenant_id: str, user_id: str) -> UserSettings:
        item = self._t.get(pk(tenant_id, user_id), "SETTINGS")
        return UserSettings.model_validate_json(item["body"]["S"]) if item else UserSettings()

    def put(self, tenant_id: str, user_id: str, settings: UserSettings) -> None:
        self._t.put({"pk": {"S": pk(tenant_id, user_id)}, "sk": {"S": "SETTINGS"},
                     "body": {"S": settings.model_dump_json()}})

    def delete_user(self, tenant_id: str, user_id: str) -> None:
        self._t.delete(pk(tenant_id, user_id), "SETTINGS")


class DynamoSessionStore:
    def __init__(self, table: DynamoTable, cipher: UserCipher) -> None:
        self._t = table
        self._cipher = cipher

    def get(self, tenant_id: str, user_id: str, session_id: str, now: datetime) -> SessionState | None:
        item = self._t.get(pk(tenant_id, user_id), f"SESSION#{session_id}")
        if item is None or expired(item, now):
            return None
        return SessionState.model_validate_json(
            self._cipher.open(tenant_id, user_id, session_id, "session", item["sealed"]["B"]))

    def put(self, tenant_id: str, user_id: str, state: SessionState) -> None:
        sealed = self._cipher.seal(tenant_id, user_id, state.session_id, "session", state.model_dump_json().encode())
        item: dict[str, Any] = {"pk": {"S": pk(tenant_id, user_id)}, "sk": {"S": f"SESSION#{state.session_id}"},
                                "sealed": {"B": sealed}}
        if state.expires_at is not None:
            item["ttl"] = {"N": str(int(state.expires_at.timestamp()))}
            item["expires_at"] = {"S": iso(state.expires_at) or ""}
        self._t.put(item)

    def for_user(self, tenant_id: str, user_id: str, now: datetime) -> list[SessionState]:
        return [SessionState.model_validate_json(self._cipher.open(
                    tenant_id, user_id, item["sk"]["S"].split("#", 1)[1], "session", item["sealed"]["B"]))
                for item in self._t.query(pk(tenant_id, user_id), "SESSION#") if not expired(item, now)]

    def delete_user(self, tenant_id: str, user_id: str) -> None:
        key = pk(tenant_id, user_id)
        for item in self._t.query(key, "SESSION#"):
            self._t.delete(key, item["sk"]["S"])


class DynamoWeightsStore:
    """Versions only grow: a put of an existing version is refused by a condition, never overwritten."""

    def __init__(self, table: DynamoTable) -> None:
        self._t = table

    def current(self, tenant_id: str) -> TunedWeights | None:
        items = self._t.query(pk(tenant_id, TENANT_WIDE), "WEIGHTS#", newest_first=True, limit=1)
        return TunedWeights.model_validate_json(items[0]["body"]["S"]) if items else None

    def put(self, weights: TunedWeights) -> None:
        self._t.put_if({"pk": {"S": pk(weights.tenant_id, TENANT_WIDE)}, "sk": {"S": f"WEIGHTS#{weights.version:08d}"},
                        "body": {"S": weights.model_dump_json()}}, "attribute_not_exists(pk)")


KEY_SCHEMA = [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]
ATTRIBUTES = [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}]


def create_table(client: Any, name: str) -> None:
    """The state table as the service expects it (tests, local tooling; the CDK stack mirrors it)."""
    with aws_errors("DynamoDB"):
        client.create_table(TableName=name, BillingMode="PAY_PER_REQUEST", KeySchema=KEY_SCHEMA,
                            AttributeDefinitions=ATTRIBUTES)
