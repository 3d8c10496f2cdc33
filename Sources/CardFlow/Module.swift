/// CardFlow core module.
