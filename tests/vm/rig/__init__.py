"""The host side of the unic QEMU rig (tests/vm): see docs/testing.md."""
