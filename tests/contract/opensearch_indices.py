"""An index of the HTTP fake: settings, mapping and documents, checked as OpenSearch 2.19 checks them.

Settings are kept flat with string values (``index.number_of_shards: "4"``) as OpenSearch keeps
them; unknown settings, a static setting changed on an open index, an undefined analyzer or
similarity, a wrong vector dimension and a field outside a strict mapping are refused with the
error type OpenSearch uses. Documents live on shards chosen by their routing; searches see what
the last refresh made visible, gets see every write (real-time get).
"""

from __future__ import annotations

import re
import time
import uuid
import zlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tests.contract.opensearch_query import Field, QueryError

TIME = re.compile(r"^(-1|0|\d+(\.\d+)?(nanos|micros|ms|s|m|h|d))$")
DYNAMIC = [re.compile(p) for p in (
    r"index\.number_of_replicas", r"index\.refresh_interval", r"index\.max_result_window",
    r"index\.knn\.algo_param\.ef_search", r"index\.search\.slowlog\.threshold\.(query|fetch)\.(warn|info|debug|trace)",
    r"index\.indexing\.slowlog\.threshold\.index\.(warn|info|debug|trace)", r"index\.search\.slowlog\.level",
    r"index\.indexing\.slowlog\.(level|source|reformat)", r"index\.blocks\.(write|read_only)")]
STATIC = [re.compile(p) for p in (
    r"index\.number_of_shards", r"index\.knn", r"index\.codec", r"index\.number_of_routing_shards",
    r"index\.similarity\.[^.]+\.(type|k1|b|discount_overlaps)", r"index\.analysis\..+")]
READ_ONLY = ("index.uuid", "index.provided_name", "index.creation_date", "index.version.created")
BUILTIN_ANALYZERS = {"standard", "simple", "whitespace", "keyword", "stop"}
FIELD_PARAMETERS = {
    "keyword": {"type", "index", "doc_values", "ignore_above", "null_value"},
    "text": {"type", "analyzer", "search_analyzer", "similarity", "index", "norms", "fields"},
    "float": {"type", "index", "doc_values"}, "integer": {"type", "index", "doc_values"},
    "long": {"type", "index", "doc_values"}, "boolean": {"type", "index", "doc_values"},
    "date": {"type", "format", "index", "doc_values"}, "binary": {"type", "doc_values"},
    "knn_vector": {"type", "dimension", "method", "data_type", "mode", "compression_level", "space_type"},
    "nested": {"type", "properties", "dynamic"}, "object": {"type", "properties", "dynamic", "enabled"},
}


def flatten(settings: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in settings.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten(value, name + "."))
        else:
            out[name] = [str(v) for v in value] if isinstance(value, list) else _string(value)
    return {k if k.startswith("index.") else "index." + k: v for k, v in out.items()} if not prefix else out


def nest(flat: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in flat.items():
        node = out
        *path, last = key.split(".")
        for part in path:
            node = node.setdefault(part, {})
        node[last] = value
    return out


def _string(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def check_settings(flat: dict[str, Any]) -> None:
    for key, value in flat.items():
        if key in READ_ONLY or not any(p.fullmatch(key) for p in DYNAMIC + STATIC):
            raise QueryError(400, "illegal_argument_exception", f"unknown setting [{key}] please check that any "
                             "required plugins are installed, or check the breaking changes documentation for "
                             "removed settings")
        if ("slowlog.threshold" in key or key == "index.refresh_interval") and not TIME.match(str(value)):
            raise QueryError(400, "illegal_argument_exception", f"failed to parse setting [{key}] with value "
                             f"[{value}] as a time value: unit is missing or unrecognized")
        if key == "index.number_of_shards" and not (1 <= int(value) <= 1024):
            raise QueryError(400, "illegal_argument_exception", f"Failed to parse value [{value}] for setting "
                             "[index.number_of_shards] must be >= 1 and <= 1024")
        if re.fullmatch(r"index\.similarity\.[^.]+\.b", key) and not 0 <= float(value) <= 1:
            raise QueryError(400, "illegal_argument_exception", f"illegal b value: {value}, must be between 0 and 1")
        if re.fullmatch(r"index\.similarity\.[^.]+\.k1", key) and not float(value) >= 0:
            raise QueryError(400, "illegal_argument_exception", f"illegal k1 value: {value}, must be a non-negative "
                             "finite value")


@dataclass
class Doc:
    source: dict[str, Any]
    routing: str | None
    version: int
    seq_no: int


@dataclass
class FakeIndex:
    name: str
    settings: dict[str, Any]
    mappings: dict[str, Any]
    uuid: str = field(default_factory=lambda: uuid.uuid4().hex[:22])
    docs: dict[str, Doc] = field(default_factory=dict)  # what a real-time get sees
    visible: dict[str, Doc] = field(default_factory=dict)  # what the last refresh made searchable
    pending_since: float | None = None
    seq_no: int = 0

    @classmethod
    def create(cls, name: str, body: dict[str, Any] | None) -> FakeIndex:
        if not re.fullmatch(r"[a-z0-9][a-z0-9_.+-]*", name) or len(name) > 255:
            raise QueryError(400, "invalid_index_name_exception", f"Invalid index name [{name}], must be lowercase "
                             "and must not start with '_', '-' or '+'")
        body = body or {}
        flat = {"index.number_of_shards": "1", "index.number_of_replicas": "1", **flatten(body.get("settings", {}))}
        check_settings(flat)
        index = cls(name, flat, body.get("mappings") or {"properties": {}})
        index.settings.update({"index.uuid": index.uuid, "index.provided_name": name,
                               "index.version.created": "136407927",
                               "index.creation_date": str(int(time.time() * 1000))})
        index._check_mapping(index.mappings.get("properties", {}), "")
        return index

    # -- settings and mapping
    @property
    def shards(self) -> int:
        return int(self.settings["index.number_of_shards"])

    def shard(self, routing: str | None, doc_id: str) -> int:
        # OpenSearch hashes the routing (default: the id) with murmur3; any stable hash shows the same effects
        return zlib.crc32((routing if routing is not None else doc_id).encode()) % self.shards

    def put_settings(self, body: dict[str, Any]) -> None:
        flat = flatten(body.get("settings", body))
        check_settings(flat)
        static = sorted(k for k in flat if any(p.fullmatch(k) for p in STATIC) and self.settings.get(k) != flat[k])
        if static:
            raise QueryError(400, "illegal_argument_exception", f"Can't update non dynamic settings "
                             f"[[{', '.join(static)}]] for open indices [[{self.name}/{self.uuid}]]")
        self.settings.update(flat)

    def _check_mapping(self, properties: dict[str, Any], prefix: str) -> None:
        for name, spec in properties.items():
            kind = spec.get("type", "object")
            path = prefix + name
            if kind not in FIELD_PARAMETERS:
                raise QueryError(400, "mapper_parsing_exception", f"No handler for type [{kind}] declared on "
                                 f"field [{path}]")
            unknown = sorted(set(spec) - FIELD_PARAMETERS[kind])
            if unknown:
                raise QueryError(400, "mapper_parsing_exception", f"unknown parameter [{unknown[0]}] on mapper "
                                 f"[{path}] of type [{kind}]")
            if kind == "text":
                analyzer = spec.get("analyzer", "standard")
                if analyzer not in BUILTIN_ANALYZERS and f"index.analysis.analyzer.{analyzer}.type" not in \
                        self.settings:
                    raise QueryError(400, "mapper_parsing_exception", f"analyzer [{analyzer}] has not been "
                                     f"configured in mappings")
                similarity = spec.get("similarity", "BM25")
                if similarity not in ("BM25", "boolean") and \
                        f"index.similarity.{similarity}.type" not in self.settings:
                    raise QueryError(400, "mapper_parsing_exception", f"Unknown Similarity type [{similarity}] "
                                     f"for field [{path}]")
            if kind == "knn_vector":
                if not 1 <= int(spec.get("dimension", 0)) <= 16000:
                    raise QueryError(400, "mapper_parsing_exception", f"Dimension value must be between 1 and "
                                     f"16000 for field [{path}]")
                if "method" in spec and self.settings.get("index.knn") != "true":
                    raise QueryError(400, "mapper_parsing_exception", "Cannot set modelId or method parameters "
                                     "when index.knn setting is false")
            if kind in ("nested", "object"):
                self._check_mapping(spec.get("properties", {}), path + ".")

    def fields(self) -> dict[str, Field]:
        out: dict[str, Field] = {}

        def walk(properties: dict[str, Any], prefix: str) -> None:
            for name, spec in properties.items():
                kind = spec.get("type", "object")
                found = Field(kind, int(spec.get("dimension", 0)))
                similarity = spec.get("similarity", "BM25")
                if kind == "text" and similarity not in ("BM25", "boolean"):
                    found.k1 = float(self.settings.get(f"index.similarity.{similarity}.k1", 1.2))
                    found.b = float(self.settings.get(f"index.similarity.{similarity}.b", 0.75))
                out[prefix + name] = found
                walk(spec.get("properties", {}), prefix + name + ".")

        walk(self.mappings.get("properties", {}), "")
        return out

    @property
    def routing_required(self) -> bool:
        return bool(self.mappings.get("_routing", {}).get("required"))

    # -- documents
    def check_document(self, doc_id: str, source: dict[str, Any]) -> None:
        """A document as the mapping accepts it; a dynamic mapping grows with new fields."""
        dynamic = str(self.mappings.get("dynamic", "true"))
        self._check_object(doc_id, source, self.mappings.setdefault("properties", {}), "", dynamic)

    def _check_object(self, doc_id: str, value: dict[str, Any], properties: dict[str, Any], prefix: str,
                      dynamic: str) -> None:
        for name, item in value.items():
            path = prefix + name
            spec = properties.get(name)
            if spec is None:
                if dynamic == "strict":
                    raise QueryError(400, "strict_dynamic_mapping_exception", f"mapping set to strict, dynamic "
                                     f"introduction of [{name}] within [{prefix.rstrip('.') or '_doc'}] is not "
                                     "allowed")
                if dynamic == "false" or item is None:
                    continue
                spec = properties[name] = _guess(item)
            if item is None:
                continue
            kind = spec.get("type", "object")
            if kind == "knn_vector":
                given = len(item) if isinstance(item, list) else 1
                if given != int(spec["dimension"]):
                    raise QueryError(400, "mapper_parsing_exception", f"failed to parse field [{path}] of type "
                                     f"[knn_vector] in document with id '{doc_id}'. Vector dimension mismatch. "
                                     f"Expected: {spec['dimension']}, Given: {given}")
            elif kind in ("nested", "object"):
                children = item if isinstance(item, list) else [item]
                for child in children:
                    if not isinstance(child, dict):
                        raise QueryError(400, "mapper_parsing_exception", f"object mapping for [{path}] tried to "
                                         "parse field as object, but found a concrete value")
                    self._check_object(doc_id, child, spec.setdefault("properties", {}), path + ".",
                                       str(spec.get("dynamic", dynamic)))
            elif kind == "date":
                try:
                    datetime.fromisoformat(str(item))
                except ValueError:
                    raise QueryError(400, "mapper_parsing_exception", f"failed to parse field [{path}] of type "
                                     f"[date] in document with id '{doc_id}'") from None
            elif kind in ("float", "integer", "long") and any(  # a field holds one value or an array of them
                    isinstance(x, bool) or not isinstance(x, int | float) for x in (item if isinstance(item, list)
                                                                                      else [item])):
                raise QueryError(400, "mapper_parsing_exception", f"failed to parse field [{path}] of type [{kind}] "
                                 f"in document with id '{doc_id}'")

    def write(self, doc_id: str, source: dict[str, Any], routing: str | None) -> tuple[str, Doc]:
        self.seq_no += 1
        old = self.docs.get(doc_id)
        doc = Doc(source, routing, (old.version + 1) if old else 1, self.seq_no)
        self.docs[doc_id] = doc
        self._pending()
        return ("updated" if old else "created"), doc

    def remove(self, doc_id: str) -> Doc | None:
        self.seq_no += 1
        doc = self.docs.pop(doc_id, None)
        if doc is not None:
            self._pending()
        return doc

    def _pending(self) -> None:
        if self.pending_since is None:
            self.pending_since = time.monotonic()

    def refresh(self, force: bool = False) -> None:
        """An explicit refresh, or the periodic one once ``index.refresh_interval`` has passed."""
        interval = _seconds(self.settings.get("index.refresh_interval", "1s"))
        if self.pending_since is None:
            return
        if force or (interval >= 0 and time.monotonic() - self.pending_since >= interval):
            self.visible = dict(self.docs)
            self.pending_since = None

    def searchable(self, routings: list[str] | None) -> dict[str, dict[str, Any]]:
        """The visible documents of the shards the routing values reach (all shards without routing)."""
        self.refresh()
        shards = None if routings is None else {self.shard(r, "") for r in routings}
        return {i: {**d.source, "_id": i} for i, d in self.visible.items()
                if shards is None or self.shard(d.routing, i) in shards}


def _seconds(value: str) -> float:
    if value == "-1":
        return -1.0
    number, unit = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)?", value).groups()  # type: ignore[union-attr]
    return float(number) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, None: 0.001}[unit]


def _guess(value: Any) -> dict[str, Any]:
    """OpenSearch's dynamic mapping: what an auto-created index makes of a new field."""
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "long"}
    if isinstance(value, float):
        return {"type": "float"}
    if isinstance(value, dict):
        return {"properties": {}}
    if isinstance(value, list):
        return _guess(value[0]) if value else {"type": "keyword"}
    try:
        datetime.fromisoformat(str(value))
        return {"type": "date"}
    except ValueError:
        return {"type": "text", "fields": {"keyword": {"type": "keyword", "ignore_above": 256}}}
