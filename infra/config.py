"""A stage's configuration, read from CDK context and validated before anything is synthesised.

`cdk.json` holds the defaults of every stage under ``stages``; ``-c stage=prod`` picks one and
``-c key=value`` overrides a single value for one run. The service's own settings (thresholds,
model ids, TTLs: the ``MNEMO_*`` variables) go under ``settings`` and are validated by the same
``mnemo.settings.Settings`` model the functions use, so a typo fails ``cdk synth``, not a cold start.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mnemo.errors import ConfigurationError
from mnemo.settings import ENV_PREFIX, JSON_FIELDS, Settings

# set by the stack from the resources it creates; a stage may not override them
WIRED = frozenset({"backend", "state_table", "kms_key_id", "opensearch_url", "opensearch_index", "aws_region",
                   "extract_queue_url", "consolidate_queue_url", "data_dir", "model_dir", "query_model_path",
                   "search_query_model", "search_query_model_path", "api_keys"})


class FunctionSize(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    memory_mb: int = Field(ge=128, le=10240)
    timeout_seconds: int = Field(ge=1, le=900)


DEFAULT_SIZES = {
    # retrieve embeds the query in-process: 1,769 MB is one full vCPU
    "retrieve": FunctionSize(memory_mb=1769, timeout_seconds=10),
    "ingest": FunctionSize(memory_mb=512, timeout_seconds=10),
    "feedback": FunctionSize(memory_mb=512, timeout_seconds=10),
    "memories": FunctionSize(memory_mb=1769, timeout_seconds=29),
    "extract": FunctionSize(memory_mb=2048, timeout_seconds=120),
    "consolidate": FunctionSize(memory_mb=2048, timeout_seconds=900),
    "authorizer": FunctionSize(memory_mb=256, timeout_seconds=5),
    "index_setup": FunctionSize(memory_mb=512, timeout_seconds=120),
}
# Lambda keeps this much of an account's concurrency unreserved, whatever the functions reserve
UNRESERVED_MINIMUM = 100


class StageConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    stage: str = Field("dev", pattern=r"^[a-z][a-z0-9-]{1,19}$")
    retain_data: bool = False  # prod: tables, key, domain and queues survive `cdk destroy`
    log_retention_days: int = 30
    # OpenSearch
    opensearch_instance_type: str = "t3.medium.search"
    opensearch_data_nodes: int = Field(2, ge=1)
    opensearch_dedicated_masters: int = Field(0, ge=0)
    opensearch_master_instance_type: str = "m7g.large.search"
    opensearch_volume_gb: int = Field(20, ge=10)
    availability_zones: int = Field(2, ge=2, le=3)
    # AZ names of the pinned region to use (e.g. where every endpoint service exists); default: CDK picks
    availability_zone_names: list[str] | None = None
    # a VPC domain needs the OpenSearch service-linked role; true creates it (once per account: a second
    # stack creating it fails, so turn it on for the first stack only, or run the one command of the README)
    create_opensearch_service_role: bool = False
    # functions
    architecture: str = Field("arm64", pattern=r"^(arm64|x86_64)$")
    sizes: dict[str, FunctionSize] = Field(default_factory=lambda: dict(DEFAULT_SIZES))
    retrieve_provisioned_concurrency: int = Field(0, ge=0)
    # opt-in per function: every unit reserved comes out of the account's concurrency quota
    reserved_concurrency: dict[str, int] = Field(default_factory=dict)
    # the account's "Concurrent executions" quota (Service Quotas L-B99A9384); new accounts may have 10-50
    account_concurrency_quota: int = Field(1000, ge=10)
    # API
    throttle_rate: float = Field(200, gt=0)
    throttle_burst: int = Field(400, gt=0)
    authorizer_cache_seconds: int = Field(300, ge=0, le=3600)
    # schedules (EventBridge)
    consolidate_schedule: str = "cron(0 3 * * ? *)"
    tune_schedule: str = "cron(0 4 ? * SUN *)"
    # operations
    alarm_email: str | None = None
    retrieve_p95_alarm_ms: float = Field(500, gt=0)
    extraction_lag_alarm_seconds: float = Field(300, gt=0)
    dlq_max_receive_count: int = Field(5, ge=1)
    # the service's own settings (MNEMO_*), validated by mnemo.settings.Settings
    settings: dict[str, Any] = Field(default_factory=dict)

    @field_validator("sizes")
    @classmethod
    def _every_function_sized(cls, sizes: dict[str, FunctionSize]) -> dict[str, FunctionSize]:
        unknown = set(sizes) - set(DEFAULT_SIZES)
        if unknown:
            raise ValueError(f"unknown functions in sizes: {sorted(unknown)}")
        return {**DEFAULT_SIZES, **sizes}

    @field_validator("reserved_concurrency")
    @classmethod
    def _reserved_for_known_functions(cls, reserved: dict[str, int]) -> dict[str, int]:
        unknown = set(reserved) - set(DEFAULT_SIZES)
        if unknown:
            raise ValueError(f"unknown functions in reserved_concurrency: {sorted(unknown)}")
        if any(v < 1 for v in reserved.values()):
            raise ValueError("reserved concurrency is at least 1 (leave a function out to reserve none)")
        return reserved

    @model_validator(mode="after")
    def _fits_the_account(self) -> StageConfig:
        needed = self.concurrency_needed()
        if needed > self.account_concurrency_quota:
            raise ValueError(
                f"reserved_concurrency: {sum(self.reserved_concurrency.values())} reserved (plus "
                f"{UNRESERVED_MINIMUM} Lambda keeps unreserved) needs an account concurrency quota of at least "
                f"{needed}, the stage says {self.account_concurrency_quota}: request it in Service Quotas "
                "(L-B99A9384) or reserve less")
        if self.availability_zone_names is not None and len(self.availability_zone_names) != self.availability_zones:
            raise ValueError("availability_zone_names must name availability_zones zones")
        return self

    def concurrency_needed(self) -> int:
        """The account concurrency quota this stage needs (README "Deploy")."""
        provisioned = 0 if "retrieve" in self.reserved_concurrency else self.retrieve_provisioned_concurrency
        taken = sum(self.reserved_concurrency.values()) + provisioned
        return taken + UNRESERVED_MINIMUM if taken else 0

    @field_validator("settings")
    @classmethod
    def _valid_service_settings(cls, values: dict[str, Any]) -> dict[str, Any]:
        unknown = set(values) - set(Settings.model_fields)
        if unknown:
            raise ValueError(f"unknown service settings: {sorted(unknown)}")
        wired = set(values) & WIRED
        if wired:
            raise ValueError(f"set by the stack, not by a stage: {sorted(wired)}")
        try:
            Settings.from_env(service_environment(values))
        except ConfigurationError as exc:
            raise ValueError(exc.message) from exc
        return values

    def function_environment(self) -> dict[str, str]:
        return service_environment(self.settings)


def pascal(job: str) -> str:
    """A job's name in construct ids and alarm names: "index_setup" -> "IndexSetup"."""
    return "".join(part.title() for part in job.split("_"))


def service_environment(values: dict[str, Any]) -> dict[str, str]:
    env = {}
    for name, value in values.items():
        if name in JSON_FIELDS or isinstance(value, dict | list):
            text = json.dumps(value)
        elif isinstance(value, bool):
            text = "true" if value else "false"
        else:
            text = str(value)
        env[ENV_PREFIX + name.upper()] = text
    return env


class ConfigError(Exception):
    pass


def load(context: dict[str, Any]) -> StageConfig:
    """``context``: cdk.json's context merged with -c values (strings from the command line)."""
    stage = str(context.get("stage", "dev"))
    stages: dict[str, Any] = context.get("stages") or {}
    base: dict[str, Any] = dict(stages.get(stage, {}))
    for key, value in context.items():
        if key in StageConfig.model_fields and key not in ("stage", "settings"):
            # -c values arrive as strings: "4", "true", '{"a": 1}' are JSON, "t3.medium.search" is not
            base[key] = json.loads(value) if isinstance(value, str) and _is_json(value) else value
    try:
        return StageConfig.model_validate({**base, "stage": stage})
    except ValidationError as exc:
        where = ", ".join(".".join(str(p) for p in e["loc"]) + f": {e['msg']}" for e in exc.errors())
        raise ConfigError(f"stage {stage!r}: {where}") from exc


def _is_json(value: str) -> bool:
    try:
        json.loads(value)
    except json.JSONDecodeError:
        return False
    return True
