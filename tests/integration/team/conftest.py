"""The loopback S3 store (tests/helpers/s3.py) for every team-library test."""

from tests.helpers.s3 import moto, moto_server  # noqa: F401
