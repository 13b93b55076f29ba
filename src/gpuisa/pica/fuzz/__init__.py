"""``pica fuzz``: differential fuzzing of an emulator behind the adapter protocol
(docs/adapter-protocol.md) against gpuisa, with shrinking and deduplication of what it
finds (docs/fuzzing.md)."""
