/// An optional output field that prints as `null` when absent, where the synthesized
/// `Encodable` would leave the key out: `{"readCounter":null}`, as those answers have always
/// read.
// swift-format-ignore: UseSynthesizedInitializer
@propertyWrapper
struct NullIfAbsent<Value: Encodable & Sendable>: Encodable, Sendable {
    var wrappedValue: Value?

    // Declared, not synthesized: only a declared init(wrappedValue:) lets the output types'
    // memberwise initializers take a plain optional for a wrapped field.
    init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}
