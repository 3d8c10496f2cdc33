/// Placeholder replaced by the CardCrypto implementation.
import CLibCrypto
