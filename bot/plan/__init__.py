"""Planning, pure: rows vs KEPs -> changes, evidence, findings, tracking, changelog."""
