"""firmware_bridge — see docs/architecture.md; filled in by its own issue."""
