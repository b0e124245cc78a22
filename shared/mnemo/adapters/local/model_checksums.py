"""Pinned checksums of the bundled embedding model files (DESIGN.md section 6)."""

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
# the query twin shipped in mnemo/models (mnemo.training.query_model derives it; `make query-model`)
# the extraction encoder shipped in mnemo/models (mnemo.training.encoder fine-tunes it; `make train-encoder`)
EXTRACTOR_ENCODER_SHA256 = "7e41c8ceda719f19c264b7cb57c7a6b955ebd420d802982395abdfcd9df3f9dc"
QUERY_MODEL_SHA256 = "68beb7f38e0726ebf7ee6f283d9252f09d8af97415910d190bccdc979c30a888"
# the search query encoder shipped in mnemo/models (mnemo.training.query_tower fine-tunes it; `make search-model`)
SEARCH_MODEL_SHA256 = "5dda4ce56fae367b0efdca6939abb1fa1f31d2e173f6f49803cb10c651fb8fcd"
