"""Development infrastructure: find or start PostgreSQL and NATS JetStream."""
