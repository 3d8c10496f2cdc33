import CardFlowCrypto
import Crypto
import CryptoExtras
import Testing

/// Library CBC against hand-chained single blocks for seeded random inputs, and typed input errors.
@Suite struct CrossCheckAndErrorTests {
    /// SplitMix64: a small deterministic generator so failures reproduce.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func bytes(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &self) }
        }
    }

    func manualCBCEncrypt(_ data: [UInt8], iv: [UInt8], blockSize: Int, encryptBlock: ([UInt8]) throws -> [UInt8])
        rethrows -> [UInt8]
    {
        var previous = iv
        var output: [UInt8] = []
        for start in stride(from: 0, to: data.count, by: blockSize) {
            previous = try encryptBlock(zip(data[start..<start + blockSize], previous).map { $0 ^ $1 })
            output += previous
        }
        return output
    }

    func manualCBCDecrypt(_ data: [UInt8], iv: [UInt8], blockSize: Int, decryptBlock: ([UInt8]) throws -> [UInt8])
        rethrows -> [UInt8]
    {
        var previous = iv
        var output: [UInt8] = []
        for start in stride(from: 0, to: data.count, by: blockSize) {
            let block = Array(data[start..<start + blockSize])
            output += zip(try decryptBlock(block), previous).map { $0 ^ $1 }
            previous = block
        }
        return output
    }

    @Test func aesCBCEqualsPermuteChaining() throws {
        var generator = SeededGenerator(state: 0x4445_5346_4952_4501)
        for round in 0..<32 {
            let cipher = try AES128Cipher(key: generator.bytes(16))
            let iv = generator.bytes(16)
            let data = generator.bytes(16 * (1 + round % 5))
            let expected = try manualCBCEncrypt(data, iv: iv, blockSize: 16, encryptBlock: cipher.encryptBlock)
            let encrypted = try cipher.encryptCBC(data, iv: iv)
            #expect(encrypted == expected)
            #expect(try cipher.decryptCBC(encrypted, iv: iv) == data)
            #expect(try manualCBCDecrypt(encrypted, iv: iv, blockSize: 16, decryptBlock: cipher.decryptBlock) == data)
        }
    }

    @Test(arguments: [8, 16, 24])
    func tripleDESCBCEqualsECBChaining(keyLength: Int) throws {
        var generator = SeededGenerator(state: 0x3344_4553_0000_0000 | UInt64(keyLength))
        for round in 0..<32 {
            let cipher = try TripleDESCipher(key: generator.bytes(keyLength))
            let iv = generator.bytes(8)
            let data = generator.bytes(8 * (1 + round % 6))
            let expected = try manualCBCEncrypt(data, iv: iv, blockSize: 8, encryptBlock: cipher.encryptECB)
            let encrypted = try cipher.encryptCBC(data, iv: iv)
            #expect(encrypted == expected)
            #expect(try cipher.decryptCBC(encrypted, iv: iv) == data)
            #expect(try manualCBCDecrypt(encrypted, iv: iv, blockSize: 8, decryptBlock: cipher.decryptECB) == data)
            // Send mode is CBC with D in place of E; the card's recovery inverts it.
            let sent = try cipher.legacySendModeDecipher(data, iv: iv)
            #expect(sent == (try manualCBCEncrypt(data, iv: iv, blockSize: 8, encryptBlock: cipher.decryptECB)))
            #expect(try cipher.legacySendModeRecover(sent, iv: iv) == data)
        }
    }

    /// The shared, fetched-once EVP_CIPHER is used from many tasks at once; every result must match the serial one.
    @Test func concurrentTripleDESUse() async throws {
        let cipher = try TripleDESCipher(key: hex("0123456789ABCDEF 23456789ABCDEF01 456789ABCDEF0123"))
        let iv = hex("0001020304050607")
        var generator = SeededGenerator(state: 99)
        let inputs = (0..<64).map { _ in generator.bytes(64) }
        let serial = try inputs.map { try cipher.encryptCBC($0, iv: iv) }
        let concurrent = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            for (index, input) in inputs.enumerated() {
                group.addTask { (index, try cipher.encryptCBC(input, iv: iv)) }
            }
            var results = [[UInt8]](repeating: [], count: inputs.count)
            for try await (index, output) in group { results[index] = output }
            return results
        }
        #expect(concurrent == serial)
    }

    @Test func twoKeyExpandsToK1K2K1() throws {
        var generator = SeededGenerator(state: 7)
        let k1 = generator.bytes(8)
        let k2 = generator.bytes(8)
        let block = generator.bytes(8)
        let twoKey = try TripleDESCipher(key: k1 + k2)
        let threeKey = try TripleDESCipher(key: k1 + k2 + k1)
        #expect(twoKey.expandedKey == k1 + k2 + k1)
        #expect(try twoKey.encryptECB(block) == threeKey.encryptECB(block))
    }

    /// AESCMAC is written out on the AES block function; swift-crypto's `AES.CMAC` (BoringSSL's
    /// CMAC) and the generic ``BlockCipherCMAC`` must agree with it on every length around the
    /// block boundaries and every truncation.
    @Test func aesCMACEqualsSwiftCryptoAndGenericCMAC() throws {
        var generator = SeededGenerator(state: 0xC3AC)
        for length in [0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 49, 100, 255] {
            for _ in 0..<4 {
                let key = generator.bytes(16)
                let message = generator.bytes(length)
                var library = try AES.CMAC(key: SymmetricKey(data: key))
                library.update(data: message)
                let expected = Array(library.finalize())
                #expect(try AESCMAC.mac(message, key: key) == expected, "length \(length)")
                #expect(try BlockCipherCMAC.mac(message, cipher: AES128Cipher(key: key)) == expected)
                for outputSize in [0, 4, 8, 15] {
                    #expect(
                        try AESCMAC.mac(message, key: key, outputSize: outputSize) == Array(expected.prefix(outputSize))
                    )
                }
            }
        }
    }

    @Test func wrongKeyLengths() {
        #expect(throws: CardCryptoError.invalidKeyLength(algorithm: "AES-128", accepted: [16], actual: 24)) {
            try AES128Cipher(key: [UInt8](repeating: 1, count: 24))
        }
        #expect(throws: CardCryptoError.invalidKeyLength(algorithm: "3DES", accepted: [8, 16, 24], actual: 12)) {
            try TripleDESCipher(key: [UInt8](repeating: 1, count: 12))
        }
        #expect(throws: CardCryptoError.invalidKeyLength(algorithm: "AES-128", accepted: [16], actual: 15)) {
            try AESCMAC.mac([], key: [UInt8](repeating: 1, count: 15))
        }
    }

    @Test func unalignedDataAndBadIV() throws {
        let aes = try AES128Cipher(key: [UInt8](repeating: 1, count: 16))
        let des = try TripleDESCipher(key: hex("0123456789ABCDEF"))
        #expect(throws: CardCryptoError.dataNotBlockAligned(length: 15, blockSize: 16)) {
            try aes.encryptCBC([UInt8](repeating: 0, count: 15), iv: [UInt8](repeating: 0, count: 16))
        }
        #expect(throws: CardCryptoError.dataNotBlockAligned(length: 17, blockSize: 16)) {
            try aes.decryptECB([UInt8](repeating: 0, count: 17))
        }
        #expect(throws: CardCryptoError.dataNotBlockAligned(length: 15, blockSize: 16)) {
            try aes.encryptBlock([UInt8](repeating: 0, count: 15))
        }
        #expect(throws: CardCryptoError.invalidIVLength(expected: 16, actual: 8)) {
            try aes.decryptCBC([UInt8](repeating: 0, count: 16), iv: [UInt8](repeating: 0, count: 8))
        }
        #expect(throws: CardCryptoError.dataNotBlockAligned(length: 12, blockSize: 8)) {
            try des.encryptECB([UInt8](repeating: 0, count: 12))
        }
        #expect(throws: CardCryptoError.dataNotBlockAligned(length: 9, blockSize: 8)) {
            try des.decryptCBC([UInt8](repeating: 0, count: 9), iv: [UInt8](repeating: 0, count: 8))
        }
        #expect(throws: CardCryptoError.invalidIVLength(expected: 8, actual: 16)) {
            try des.encryptCBC([UInt8](repeating: 0, count: 8), iv: [UInt8](repeating: 0, count: 16))
        }
        #expect(throws: CardCryptoError.dataNotBlockAligned(length: 4, blockSize: 8)) {
            try des.legacySendModeDecipher([1, 2, 3, 4], iv: [UInt8](repeating: 0, count: 8))
        }
        #expect(throws: CardCryptoError.invalidIVLength(expected: 8, actual: 4)) {
            try BlockCipherCMAC.mac([1], cipher: des, iv: [0, 0, 0, 0])
        }
        #expect(try des.encryptCBC([], iv: [UInt8](repeating: 0, count: 8)) == [])
        #expect(try aes.encryptCBC([], iv: [UInt8](repeating: 0, count: 16)) == [])
    }

    @Test func badMACLengthAndRandomLength() {
        #expect(throws: CardCryptoError.invalidMACLength(requested: 17, blockSize: 16)) {
            try AESCMAC.mac([], key: [UInt8](repeating: 0, count: 16), outputSize: 17)
        }
        #expect(throws: CardCryptoError.invalidRandomLength(expected: 16, actual: 8)) {
            try DESFireSessionKey.aes(rndA: [UInt8](repeating: 0, count: 8), rndB: [UInt8](repeating: 0, count: 16))
        }
        #expect(throws: CardCryptoError.invalidRandomLength(expected: 8, actual: 7)) {
            try DESFireSessionKey.des(rndA: [UInt8](repeating: 0, count: 8), rndB: [UInt8](repeating: 0, count: 7))
        }
    }
}
