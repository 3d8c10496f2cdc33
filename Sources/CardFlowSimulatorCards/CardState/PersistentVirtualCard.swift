/// A card model whose persistent part (its memory, not the volatile selection or
/// authentication state) can be saved and loaded with ``CardStateStore``.
public protocol PersistentVirtualCard: VirtualCard, Codable {
    /// The ``VirtualCard/kind`` every instance of this model reports; a state file records it
    /// and is only loaded into a model with the same kind.
    static var persistentKind: String { get }
}
