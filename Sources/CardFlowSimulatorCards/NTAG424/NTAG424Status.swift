/// The native status codes the simulated NTAG 424 DNA answers (SW1 `91`, SW2 this value): the
/// DESFire family's, of which NT4H2421Gx uses a subset (internal).
typealias NTAG424Status = DESFireCardStatus
