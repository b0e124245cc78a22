"""Lambda entry points: one per job, each a thin decorator stack over the composition root."""
