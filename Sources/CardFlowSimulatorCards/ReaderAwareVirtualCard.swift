/// A card model whose answers depend on the reader it lies on: storage cards whose PC/SC part 3
/// pseudo-APDUs the reader firmware turns into card commands in its own dialect (LOAD KEYS'
/// P2 is a key slot on one family, a key type on another).
///
/// `VirtualCCIDReader` tells the card its USB identity each time it places the card.
public protocol ReaderAwareVirtualCard: VirtualCard {
    /// The card was placed on a reader with this USB vendor and product ID.
    mutating func placed(onReaderWithVendorID vendorID: UInt16, productID: UInt16)
}
