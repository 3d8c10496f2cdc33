import CardFlow
import Crypto
import Testing

@testable import CardFlowTONCard

@Suite("TON activation crypto and protected APDUs (vector A)")
struct TONCryptoVectorTests {
    @Test func derivesVectorA() throws {
        let activation = try VectorA.activation()
        #expect(activation.passwordHash.hexString == VectorA.h1)
        #expect(activation.encryptedPassword.hexString == VectorA.b1)
        #expect(activation.hashOfEncryptedPassword.hexString == VectorA.h2)
        #expect(activation.encryptedCommonSecret.hexString == VectorA.ecs)
        #expect(activation.hashOfEncryptedCommonSecret.hexString == VectorA.h3)
        #expect(activation.hmacKey.hexString == VectorA.hmacKey)
        #expect(activation.description == "<TON activation data>")
    }

    @Test func recordedVerifyPinAPDU() throws {
        let command = try TONProtectedCommand.make(
            .verifyPin, payload: try TONPin("5558").bytes,
            sault: try [UInt8](hex: VectorA.recordedSault),
            key: try [UInt8](hex: VectorA.hmacKey))
        #expect(command.encoded().hexString == VectorA.recordedVerifyPin5558)
    }

    @Test func keychainIdOfDocumentedKey() throws {
        let id = TONProtectedCommand.keyHmac(
            [0x00, 0x11, 0x22, 0x33, 0x44, 0x55], key: try [UInt8](hex: VectorA.hmacKey))
        #expect(id.hexString == "D7E0DFB66A2F72AAD7D66D897C805D307EE1F1CB8077D3B8CF1A942D6A5AC2FF")
    }

    @Test func androidHmacHelperVector() throws {
        let mac = HMAC<SHA256>.authenticationCode(
            for: [0x00, 0xAA], using: SymmetricKey(data: [UInt8](repeating: 0, count: 32)))
        #expect(Array(mac).lowercaseHex == "89c3c76721b45a2314a3f750a6fc31ebfa17bca96979ca95a7f4849ac814501f")
    }

    @Test func protectedCommandRejectsBadSault() {
        #expect(throws: TONError.library(code: 10014)) {
            try TONProtectedCommand.make(.verifyPin, payload: [1, 2, 3, 4], sault: [1, 2], key: [0])
        }
    }

    @Test func serialNumberWireForm() throws {
        let serial = try TONSerialNumber(VectorA.serial)
        #expect(serial.wireBytes.hexString == VectorA.serialWire)
        #expect(try TONSerialNumber(wireBytes: try [UInt8](hex: VectorA.serialWire)) == serial)
        #expect(throws: TONError.library(code: 40037)) { try TONSerialNumber(wireBytes: [1, 2, 3]) }
        #expect(throws: TONError.library(code: 40037)) {
            try TONSerialNumber(wireBytes: [UInt8](repeating: 0x31, count: 24))
        }
        #expect(throws: TONError.library(code: 30025)) { try TONSerialNumber("123") }
        #expect(throws: TONError.library(code: 30026)) { try TONSerialNumber("50439480243390112681323A") }
    }

    @Test func inputValidation() {
        #expect(throws: TONError.library(code: 30006)) { try TONPin("555") }
        #expect(throws: TONError.library(code: 30007)) { try TONPin("55a5") }
        #expect(throws: TONError.library(code: 30013)) { try TONHDIndex("") }
        #expect(throws: TONError.library(code: 30013)) { try TONHDIndex("12345678901") }
        #expect(throws: TONError.library(code: 30014)) { try TONHDIndex("1x") }
        #expect(throws: TONError.library(code: 30000)) {
            try TONActivationData(passwordHex: "00", commonSecretHex: VectorA.commonSecret, ivHex: VectorA.iv)
        }
        #expect(throws: TONError.library(code: 30003)) {
            try TONActivationData(
                passwordHex: String(repeating: "G", count: 256), commonSecretHex: VectorA.commonSecret,
                ivHex: VectorA.iv)
        }
        #expect(throws: TONError.library(code: 30001)) {
            try TONActivationData(passwordHex: VectorA.password, commonSecretHex: "00", ivHex: VectorA.iv)
        }
        #expect(throws: TONError.library(code: 30004)) {
            try TONActivationData(
                passwordHex: VectorA.password, commonSecretHex: String(repeating: "Z", count: 64), ivHex: VectorA.iv)
        }
        #expect(throws: TONError.library(code: 30002)) {
            try TONActivationData(passwordHex: VectorA.password, commonSecretHex: VectorA.commonSecret, ivHex: "00")
        }
        #expect(throws: TONError.library(code: 30005)) {
            try TONActivationData(
                passwordHex: VectorA.password, commonSecretHex: VectorA.commonSecret,
                ivHex: String(repeating: "x", count: 32))
        }
        #expect(throws: TONError.library(code: 30009)) {
            try TONMessage.bytes(hex: String(repeating: "00", count: 190), withIndex: false)
        }
        #expect(throws: TONError.library(code: 30010)) {
            try TONMessage.bytes(hex: String(repeating: "00", count: 179), withIndex: true)
        }
        #expect(throws: TONError.library(code: 30009)) { try TONMessage.bytes(hex: "", withIndex: false) }
        #expect(throws: TONError.library(code: 30008)) { try TONMessage.bytes(hex: "zz", withIndex: false) }
        #expect(throws: TONError.library(code: 30020)) {
            try TONKeychainLimits.key(hex: String(repeating: "00", count: 8193))
        }
        #expect(throws: TONError.library(code: 30019)) { try TONKeychainLimits.key(hex: "0g") }
        #expect(throws: TONError.library(code: 30017)) { try TONKeychainLimits.keyHmac(hex: "00") }
        #expect(throws: TONError.library(code: 30018)) {
            try TONKeychainLimits.keyHmac(hex: String(repeating: "q", count: 64))
        }
    }
}
