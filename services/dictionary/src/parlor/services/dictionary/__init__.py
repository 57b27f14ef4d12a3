"""The dictionary service."""
