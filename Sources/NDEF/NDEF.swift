/// Placeholder replaced by the NDEF implementation.
