"""The composition root: the only module that names concrete adapters.

The Lambdas, the local server, the CLI and the tests all build mnemo through here.
AWS modules are imported only when the AWS back end is chosen.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from mnemo.clock import Clock, SystemClock
from mnemo.domain.extraction import RuleBasedExtractor
from mnemo.domain.extraction.ending import EndingJudge, EndingModel
from mnemo.domain.extraction.judge import CandidateJudge
from mnemo.domain.extraction.pipeline import LearnedExtractor
from mnemo.domain.extraction.readings import PieceReadings
from mnemo.domain.extraction.tagger import SlotTagger, TokenEncoder
from mnemo.domain.policy import PolicyTable
from mnemo.domain.slot_affinity import SlotAffinity
from mnemo.errors import ConfigurationError
from mnemo.ports import Embedder
from mnemo.services.consolidation import Consolidator
from mnemo.services.context import Ports
from mnemo.services.extraction import ExtractionService
from mnemo.services.feedback import FeedbackService
from mnemo.services.forgetting import Forgetter
from mnemo.services.ingest import Ingestor
from mnemo.services.profile import ProfileTrackedMemories, ProfileView
from mnemo.services.retrieval import Retriever
from mnemo.services.sessions import SessionService
from mnemo.services.signals import ImplicitSignals
from mnemo.services.tuning import Tuner
from mnemo.services.user_caches import UserCaches
from mnemo.services.user_control import UserControl
from mnemo.services.writing import MemoryWriter
from mnemo.settings import Settings

TAGGER_PATH = Path(__file__).resolve().parent / "models" / "extractor_tagger.npz"
JUDGE_PATH = Path(__file__).resolve().parent / "models" / "extractor_judge.npz"
ENDING_PATH = Path(__file__).resolve().parent / "models" / "ending.npz"
CROSS_PATH = Path(__file__).resolve().parent / "models" / "ending-cross-int8.onnx"
SLOT_AFFINITY_PATH = Path(__file__).resolve().parent / "models" / "query_slots.npz"
_AFFINITIES: dict[Path, SlotAffinity] = {}
_TAGGERS: dict[Path | None, SlotTagger] = {}
_CANDIDATE_JUDGES: dict[Path | None, CandidateJudge] = {}
_ENDING_JUDGES: dict[tuple[Path, Path | None, float, Path | None, Path | None], EndingJudge] = {}
_TOKEN_ENCODERS: dict[tuple[int, int, str, str], TokenEncoder] = {}
_PIECE_READINGS: dict[tuple[object, ...], PieceReadings] = {}
_EMBEDDERS: dict[tuple[int, int, bool, str], Embedder] = {}

# Libraries that log request bodies at DEBUG (route arguments, AWS and OpenSearch payloads): user text
# must never reach a log, whatever level an operator turns on, so they never go below INFO.
BODY_LOGGERS = ("aws_lambda_powertools.event_handler", "botocore", "boto3", "urllib3", "opensearch", "s3transfer")


def keep_bodies_out_of_logs() -> None:
    for name in BODY_LOGGERS:
        logger = logging.getLogger(name)
        if logger.level < logging.INFO:  # NOTSET too: a DEBUG root would otherwise let bodies through
            logger.setLevel(logging.INFO)


def shared_embedder(settings: Settings) -> Embedder:
    """One model per process: loading costs a second, and the session is thread-safe."""
    key = (settings.embedding_threads, settings.embedding_batch_size, settings.fast_query_model,
           f"{settings.model_dir}|{settings.query_model_path}|{settings.search_query_model}|"
           f"{settings.search_query_model_path}")
    if key not in _EMBEDDERS:
        from mnemo.adapters.local.onnx_embedder import QUERY_MODEL_PATH, SEARCH_MODEL_PATH, OnnxMiniLmEmbedder

        _EMBEDDERS[key] = OnnxMiniLmEmbedder(
            threads=settings.embedding_threads, batch_size=settings.embedding_batch_size,
            model_dir=settings.model_dir,
            query_model=(settings.query_model_path or QUERY_MODEL_PATH) if settings.fast_query_model else None,
            search_model=((settings.search_query_model_path or SEARCH_MODEL_PATH)
                          if settings.search_query_model else None))
    return _EMBEDDERS[key]


@dataclass
class Mnemo:
    """The wired service: ports plus the use cases over them."""

    ports: Ports
    writer: MemoryWriter
    retriever: Retriever
    ingestor: Ingestor
    forgetter: Forgetter
    extraction: ExtractionService
    feedback: FeedbackService
    control: UserControl
    consolidator: Consolidator
    sessions: SessionService
    tuner: Tuner
    profiles: ProfileView
    # what this process holds of each user (mnemo.services.user_caches): emptied of a user on its erase here,
    # and at the next request or job after its erase by another process (drop_erased)
    caches: UserCaches = field(default_factory=UserCaches)
    _closers: list[object] = field(default_factory=list)

    @property
    def settings(self) -> Settings:
        return self.ports.settings

    def close(self) -> None:
        """Stop background work first, then flush what it and the requests left queued."""
        self.retriever.close()
        for closer in sorted(self._closers, key=lambda c: 0 if hasattr(c, "stop") else 1):
            end = getattr(closer, "stop", None) or getattr(closer, "close", None)
            if callable(end):
                end()
        self._closers.clear()


def _services(ports: Ports, summariser: Any = None, *, profile_in_parallel: bool = True) -> Mnemo:
    # every change to a memory makes the cached profile stale, whichever use case makes it
    ports.memories = ProfileTrackedMemories(ports.memories, ports.profiles)
    profiles = ProfileView(ports)
    writer = MemoryWriter(ports, profiles)
    # the summaries consolidation derives are refreshed by forget, delete and edit of what they were drawn from
    consolidator = Consolidator(ports, summariser)
    forgetter = Forgetter(ports, consolidator)
    signals = ImplicitSignals(ports)
    sessions = SessionService(ports)
    retriever = Retriever(ports, signals, profiles, profile_in_parallel=profile_in_parallel,
                          affinity=slot_affinity(ports.settings))
    readings = piece_readings(ports.settings)  # the learned extractor's of these settings (also an LLM's fallback)
    caches = UserCaches([retriever.queries, retriever.search_queries, signals,
                         *([readings] if readings is not None else []),
                         *([ports.endings] if ports.endings is not None else [])])
    return Mnemo(ports=ports, writer=writer, retriever=retriever,
                 ingestor=Ingestor(ports, sessions), sessions=sessions, tuner=Tuner(ports), profiles=profiles,
                 forgetter=forgetter, extraction=ExtractionService(ports, writer, forgetter, signals, sessions),
                 feedback=FeedbackService(ports),
                 control=UserControl(ports, writer, consolidator, caches=[caches.forget_user]),
                 consolidator=consolidator, caches=caches)


def slot_affinity(settings: Settings) -> SlotAffinity | None:
    """The packaged model of which kinds of fact a request needs (one per process), unless switched off."""
    if not settings.slot_boost:
        return None
    path = settings.slot_affinity_path or SLOT_AFFINITY_PATH
    if path not in _AFFINITIES:
        try:
            _AFFINITIES[path] = SlotAffinity.load(path)
        except ValueError as e:
            raise ConfigurationError(f"MNEMO_SLOT_AFFINITY_PATH: {e}") from e
    return _AFFINITIES[path]


def build_local(settings: Settings, *, clock: Clock | None = None, embedder: Embedder | None = None,
                data_dir: Path | None = None) -> Mnemo:
    """The embedded home: SQLite + in-process search + key file + bundled model."""
    keep_bodies_out_of_logs()
    from mnemo.adapters.local.erase_fence import EraseFence
    from mnemo.adapters.local.file_locks import FileUserLocks
    from mnemo.adapters.local.key_file_vault import KeyFileVault
    from mnemo.adapters.local.sqlite_db import Database
    from mnemo.adapters.local.sqlite_memory_store import SqliteMemoryStore
    from mnemo.adapters.local.sqlite_stores import (
        SqliteAuditLog,
        SqliteExtractionQueue,
        SqliteFeedbackStore,
        SqliteProfileStore,
        SqliteSessionStore,
        SqliteSettingsStore,
        SqliteTraceStore,
        SqliteTurnBuffer,
        SqliteWeightsStore,
    )
    from mnemo.crypto import TenantHashKeys, UserCipher

    clock = clock or SystemClock()
    root = (data_dir or settings.data_dir).expanduser()
    root.mkdir(parents=True, exist_ok=True)
    db = Database(root / "mnemo.db", settings.sqlite_busy_timeout_ms, settings.sqlite_autocheckpoint_pages)
    vault = KeyFileVault(db, root / "master.key", clock)
    cipher = UserCipher(vault)
    fence = EraseFence(TenantHashKeys(cipher, "erase-fence"), clock)
    if settings.embedder != "onnx" and embedder is None:
        raise ConfigurationError("the embedded home runs the bundled model only (MNEMO_EMBEDDER=onnx): "
                                 "it makes no network calls")
    embedder = embedder or shared_embedder(settings)
    memories = SqliteMemoryStore(db, cipher, embedder.dimension, settings.bm25_k1, settings.bm25_b)
    profiles = SqliteProfileStore(db, cipher)
    ports = Ports(
        settings=settings, clock=clock, embedder=embedder,
        memories=memories, profiles=profiles, user_settings=SqliteSettingsStore(db),
        buffer=SqliteTurnBuffer(db, cipher, timedelta(days=settings.buffer_ttl_days)),
        queue=SqliteExtractionQueue(db), traces=SqliteTraceStore(db, fence), audit=SqliteAuditLog(db, fence),
        vault=cipher, locks=FileUserLocks(root / "users.lock"), extractor=_extractor(settings),
        policy=PolicyTable(settings.retention_days), feedback=SqliteFeedbackStore(db, cipher),
        sessions=SqliteSessionStore(db, cipher), weights=SqliteWeightsStore(db),
        key_extractor=_key_extractor(settings), endings=endings(settings),
    )
    if settings.summariser == "bedrock":
        raise ConfigurationError("the Bedrock summariser runs in the AWS home; locally choose "
                                 "MNEMO_SUMMARISER=openai (any OpenAI-compatible endpoint) or rules")
    # the profile is a local SQLite read here: no thread to overlap it with the search (see Retriever)
    service = _services(ports, _summariser(settings), profile_in_parallel=False)
    service._closers.extend([ports.traces, ports.audit])
    from mnemo.adapters.local.erase_notices import SqliteEraseNotices

    service.caches.add(memories, profiles, cipher, vault)
    notices = SqliteEraseNotices(db, TenantHashKeys(cipher, "erase-notice"), clock)
    service.caches.listen(notices)
    service._closers.append(notices)
    return service


def build_aws(settings: Settings, *, clock: Clock | None = None, embedder: Embedder | None = None,
              dynamodb: Any = None, kms: Any = None, sqs: Any = None, opensearch: Any = None,
              bedrock: Any = None) -> Mnemo:
    """The AWS home: DynamoDB + KMS + OpenSearch + SQS. Clients may be injected (tests, custom sessions)."""
    keep_bodies_out_of_logs()
    import boto3

    from mnemo.adapters.aws.dynamo_records import (
        DynamoAuditLog,
        DynamoFeedbackStore,
        DynamoTraceStore,
        DynamoTurnBuffer,
    )
    from mnemo.adapters.aws.dynamo_state import (
        DynamoProfileStore,
        DynamoSessionStore,
        DynamoSettingsStore,
        DynamoTable,
        DynamoWeightsStore,
    )
    from mnemo.adapters.aws.kms_vault import KmsKeyVault
    from mnemo.adapters.aws.locks import DynamoUserLocks
    from mnemo.adapters.aws.opensearch_store import IndexTuning, OpenSearchMemoryStore
    from mnemo.adapters.aws.sqs_queue import SqsExtractionQueue
    from mnemo.crypto import UserCipher

    for name, value in (("kms_key_id", settings.kms_key_id), ("extract_queue_url", settings.extract_queue_url)):
        if not value:
            raise ConfigurationError(f"MNEMO_{name.upper()} is required for the AWS back end")
    clock = clock or SystemClock()
    dynamodb = dynamodb or boto3.client("dynamodb", region_name=settings.aws_region)
    kms = kms or boto3.client("kms", region_name=settings.aws_region)
    sqs = sqs or boto3.client("sqs", region_name=settings.aws_region)
    transport = opensearch or _opensearch_transport(settings)
    table = DynamoTable(dynamodb, settings.state_table)
    keys = DynamoTable(dynamodb, settings.key_table) if settings.key_table else table
    vault = KmsKeyVault(kms, keys, settings.kms_key_id, settings.data_key_cache_seconds, legacy=table)
    cipher = UserCipher(vault)
    embedder = embedder or _aws_embedder(settings, bedrock)
    ports = Ports(
        settings=settings, clock=clock, embedder=embedder,
        memories=OpenSearchMemoryStore(transport, settings.opensearch_index, cipher, table, embedder.dimension,
                                       bulk_attempts=settings.opensearch_bulk_attempts,
                                       tuning=IndexTuning.from_settings(settings), clock=clock),
        profiles=DynamoProfileStore(table, cipher), user_settings=DynamoSettingsStore(table),
        buffer=DynamoTurnBuffer(table, cipher, timedelta(days=settings.buffer_ttl_days)),
        queue=SqsExtractionQueue(sqs, settings.extract_queue_url, table, clock), traces=DynamoTraceStore(table),
        audit=DynamoAuditLog(table), vault=cipher,
        locks=DynamoUserLocks(table, clock, wait_seconds=settings.user_lock_wait_seconds),
        extractor=_extractor(settings, bedrock), policy=PolicyTable(settings.retention_days),
        feedback=DynamoFeedbackStore(table, cipher), sessions=DynamoSessionStore(table, cipher),
        weights=DynamoWeightsStore(table), judge=_judge(settings, bedrock),
        key_extractor=_key_extractor(settings), endings=endings(settings),
    )
    service = _services(ports, _summariser(settings, bedrock))
    # no erase notices in this home: each request and job checks the keys it uses afresh instead (KmsKeyVault)
    service.caches.add(cipher, vault)
    service.caches.on_request(vault.new_request)
    vault.erased_elsewhere = service.caches.forget_user
    return service


def _summariser(settings: Settings, bedrock: Any = None) -> Any:
    """The model behind consolidation's summaries; None means the offline rules."""
    choice = settings.summariser
    if choice == "auto":
        choice = "bedrock" if settings.backend == "aws" and settings.extractor == "bedrock" else "rules"
    if choice == "openai":
        if not settings.openai_base_url or not settings.openai_model:
            raise ConfigurationError("MNEMO_SUMMARISER=openai needs MNEMO_OPENAI_BASE_URL and MNEMO_OPENAI_MODEL")
        from mnemo.adapters.openai_chat import ChatCompletionsClient
        from mnemo.adapters.openai_summariser import OpenAICompatibleSummariser

        try:
            client = ChatCompletionsClient(settings.openai_base_url, settings.openai_model,
                                           settings.openai_api_key.get_secret_value(), settings.openai_timeout_seconds)
        except ValueError as exc:
            raise ConfigurationError(f"MNEMO_OPENAI_BASE_URL: {exc}") from exc
        return OpenAICompatibleSummariser(client)
    if choice == "bedrock":
        from mnemo.adapters.aws.bedrock_extractor import BedrockSummariser

        return BedrockSummariser(bedrock or _bedrock_client(settings), settings.bedrock_model_id)
    return None


def _bedrock_client(settings: Settings) -> Any:
    import boto3
    from botocore.config import Config

    return boto3.client("bedrock-runtime", region_name=settings.aws_region, config=Config(
        read_timeout=settings.bedrock_timeout_seconds, connect_timeout=5,
        retries={"max_attempts": settings.bedrock_max_attempts, "mode": "adaptive"}))


def _extractor(settings: Settings, bedrock: Any = None) -> Any:
    """The learned extractor by default; an LLM when chosen (Bedrock, or any OpenAI-compatible endpoint in
    either home), with the learned one as its fallback."""
    if settings.extractor == "rules":
        return RuleBasedExtractor()
    learned = learned_extractor(settings)
    if settings.extractor == "learned":
        return learned
    if settings.extractor == "openai":
        from mnemo.adapters.openai_extractor import OpenAIExtractor

        try:
            return OpenAIExtractor(settings.openai_base_url, settings.openai_model,
                                   settings.openai_api_key.get_secret_value(), learned,
                                   timeout_seconds=settings.openai_timeout_seconds,
                                   max_tokens=settings.openai_max_tokens)
        except ValueError as exc:
            raise ConfigurationError(f"MNEMO_OPENAI_BASE_URL: {exc}") from exc
    from mnemo.adapters.aws.bedrock_extractor import BedrockExtractor

    return BedrockExtractor(bedrock or _bedrock_client(settings), settings.bedrock_model_id, fallback=learned)


def endings(settings: Settings) -> EndingJudge | None:
    """The learned judge of endings runs in process on the extraction encoder in both homes, whichever extractor
    reads the turns (one encoder run per message); one judge per process and configuration, so that its cache of
    the facts' runs serves every service built in the process."""
    if not settings.ending_enabled:
        return None
    path = settings.ending_model_path or ENDING_PATH
    cross = (settings.ending_cross_path or CROSS_PATH) if settings.ending_cross_encoder else None
    key = (path, cross, settings.ending_confirm_from, settings.extractor_encoder_path, settings.model_dir)
    judge = _ENDING_JUDGES.get(key)
    if judge is not None:
        return judge
    confirm = None
    if cross is not None:
        if not cross.is_file():
            # not shipped while the judge is off by default (22.8 MB); trained here in about 12 minutes
            raise ConfigurationError(f"the cross-encoder judge of endings is missing ({cross.name}): run `make "
                                     "train-ending-encoder`, or set MNEMO_ENDING_CROSS_ENCODER=false")
        from mnemo.adapters.local.onnx_pair_judge import OnnxPairJudge

        confirm = OnnxPairJudge(cross)
    judge = _ENDING_JUDGES[key] = EndingJudge(shared_token_encoder(settings), EndingModel.load(path),
                                              confirm=confirm, confirm_from=settings.ending_confirm_from)
    return judge


def _key_extractor(settings: Settings) -> LearnedExtractor | None:
    """The learned extractor finds a memory's extra keys in both homes, whichever extracts the turns: it runs
    in process on the bundled model, where an LLM would cost a call per write."""
    return learned_extractor(settings) if settings.memory_keys else None


def shared_token_encoder(settings: Settings) -> TokenEncoder:
    """The fine-tuned MiniLM the tagger reads, one per process like the embedder."""
    key = (settings.embedding_threads, settings.embedding_batch_size, "extraction",
           f"{settings.model_dir}|{settings.extractor_encoder_path}")
    if key not in _TOKEN_ENCODERS:
        from mnemo.adapters.local.onnx_embedder import extraction_encoder

        _TOKEN_ENCODERS[key] = extraction_encoder(settings.embedding_threads, settings.embedding_batch_size,
                                                  settings.model_dir, settings.extractor_encoder_path)
    return _TOKEN_ENCODERS[key]


def learned_extractor(settings: Settings) -> LearnedExtractor:
    """The tagger runs on its fine-tuned MiniLM whatever the embedder (Titan included): it was trained on it."""
    tagger = _TAGGERS.get(settings.extractor_model_path)
    if tagger is None:
        tagger = SlotTagger.load(settings.extractor_model_path or TAGGER_PATH)
        _TAGGERS[settings.extractor_model_path] = tagger
    encoder = shared_token_encoder(settings)
    judge = None
    if settings.extractor_judge_keep_at_least > 0:
        judge = _CANDIDATE_JUDGES.get(settings.extractor_judge_path)
        if judge is None:
            judge = CandidateJudge.load(settings.extractor_judge_path or JUDGE_PATH)
            _CANDIDATE_JUDGES[settings.extractor_judge_path] = judge
    return LearnedExtractor(encoder, tagger, settings.extractor_min_confidence, settings.extractor_outside_at_least,
                            settings.extractor_verify_at_least, settings.extractor_later_value_doubt,
                            settings.extractor_bio_penalty, readings=piece_readings(settings), judge=judge,
                            judge_keep_at_least=settings.extractor_judge_keep_at_least)


def piece_readings(settings: Settings) -> PieceReadings | None:
    """The spans the learned extractor keeps of users' pieces (readings.py), one cache per process and
    configuration (the spans depend on the tagger, its encoder and its knobs); None when sized 0."""
    if not settings.extraction_cache_size:
        return None
    key = (settings.extraction_cache_size, settings.extractor_model_path, settings.extractor_encoder_path,
           settings.model_dir, settings.extractor_min_confidence, settings.extractor_outside_at_least,
           settings.extractor_verify_at_least, settings.extractor_bio_penalty,
           settings.extractor_judge_keep_at_least > 0)  # a judge's spans carry what the tagger saw of them
    if key not in _PIECE_READINGS:
        _PIECE_READINGS[key] = PieceReadings(settings.extraction_cache_size)
    return _PIECE_READINGS[key]



def _aws_embedder(settings: Settings, bedrock: Any = None) -> Embedder:
    if settings.embedder == "onnx":
        return shared_embedder(settings)
    from mnemo.adapters.aws.bedrock_embedder import TitanEmbedder

    return TitanEmbedder(bedrock or _bedrock_client(settings), settings.titan_model_id, settings.titan_dimensions,
                         settings.titan_concurrency)


def _judge(settings: Settings, bedrock: Any = None) -> Any:
    if settings.conflict_judge == "rules":
        return None
    from mnemo.adapters.aws.bedrock_conflicts import BedrockConflictJudge

    return BedrockConflictJudge(bedrock or _bedrock_client(settings), settings.bedrock_model_id)


def _opensearch_transport(settings: Settings) -> Any:
    """opensearch-py over HTTPS, requests signed with the function's role (SigV4)."""
    if not settings.opensearch_url:
        raise ConfigurationError("MNEMO_OPENSEARCH_URL is required for the AWS back end")
    from mnemo.adapters.aws.opensearch_transport import SignedOpenSearchTransport

    return SignedOpenSearchTransport(settings.opensearch_url, settings.aws_region,
                                     timeout=settings.opensearch_timeout_seconds)


def build(settings: Settings, **kwargs: object) -> Mnemo:
    if settings.backend == "local":
        return build_local(settings, **kwargs)  # type: ignore[arg-type]
    return build_aws(settings, **kwargs)  # type: ignore[arg-type]


def start_worker(mnemo: Mnemo) -> object:
    """Run the debounce queue in-process (embedded home); returns the worker for stopping."""
    from mnemo.adapters.local.sqlite_stores import SqliteExtractionQueue
    from mnemo.adapters.local.worker import DebounceWorker

    queue = mnemo.ports.queue
    if not isinstance(queue, SqliteExtractionQueue):
        raise ConfigurationError("the in-process worker runs on the embedded back end only")
    worker = DebounceWorker(queue, mnemo.ports.clock, mnemo.extraction.process,
                            mnemo.settings.worker_poll_seconds)
    worker.start()
    mnemo._closers.append(worker)
    return worker


def start_scheduler(mnemo: Mnemo) -> object:
    """Consolidation on a schedule, in-process (EventBridge does this in AWS)."""
    from mnemo.adapters.local.worker import PeriodicJob

    def consolidate_all() -> None:
        for tenant_id in mnemo.ports.memories.tenants():
            mnemo.consolidator.run(tenant_id)
            mnemo.tuner.run(tenant_id)
        # what DynamoDB's TTL deletes in AWS: acknowledged buffer rows and expired sessions
        now = mnemo.ports.clock.now()
        for store in (mnemo.ports.buffer, mnemo.ports.sessions):
            purge = getattr(store, "purge_expired", None)
            if callable(purge):
                purge(now)

    job = PeriodicJob(consolidate_all, mnemo.settings.consolidation_interval_hours * 3600, "mnemo-consolidate")
    job.start()
    mnemo._closers.append(job)
    return job


def run_due_jobs(mnemo: Mnemo, limit: int = 10_000) -> int:
    """Process every due extraction job now, in this thread (tests, the CLI, the demo), any back end."""
    ran = 0
    while ran < limit:
        jobs = mnemo.ports.queue.due(mnemo.ports.clock.now(), min(10, limit - ran))
        if not jobs:
            return ran
        for job in jobs:
            mnemo.extraction.process(job)
            ran += 1
    return ran
