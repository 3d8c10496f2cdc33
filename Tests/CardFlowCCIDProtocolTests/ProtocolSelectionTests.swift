import CardFlowCCIDProtocol
import Testing

/// Protocol and speed selection from real ATRs (pcsc-tools' smartcard_list.txt), PPS and
/// SetParameters bytes as ISO/IEC 7816-3 and CCID §6.1.7 lay them out.
@Suite struct ProtocolSelectionTests {
    static func atr(_ hex: String) throws -> AnswerToReset {
        try AnswerToReset(bytes: hex.split(separator: " ").map { UInt8($0, radix: 16)! })
    }
    /// JavaCOS A22 dual interface Java card: T=1 only, TA1 95, TA3 FE, TB3 9F.
    static let javaCOS = "3B 9F 95 81 31 FE 9F 00 66 46 53 05 10 00 FF 71 DF 00 00 00 00 00 EC"
    /// G&D Sm@rtCafé Expert 6.0: T=0 (default) and T=1, TA1 18, TC1 00, TA3 FE, TB3 45.
    static let smartCafe = "3B FE 18 00 00 80 31 FE 45 53 43 45 36 30 2D 43 44 30 38 31 2D 6E 46 A9"
    /// Orange Austria SIM: T=0 and T=15 (TA for T=15: C7), TA1 96.
    static let sim = "3B 9E 96 80 1F C7 80 31 E0 73 FE 21 1B 66 D0 00 6C 0C 72 00 12"
    /// Gemalto IDPrime MD 3810: T=0 only (no TD1), TA1 96, TB1 00, TC1 00, no TCK.
    static let idPrime = "3B 7F 96 00 00 80 31 80 65 B0 84 23 27 E5 12 0F FE 82 90 00"
    /// Nagra (Canal+ France): specific mode T=0 (TA2 80) at TA1 95, TC1 FF, TC2 1C.
    static let nagra = "3B FF 95 00 FF 50 80 1C 44 4E 41 53 50 34 30 30 20 52 65 76 49 35 48"
    /// Cardlogix/Hirsch uTrust FIDO2 card: specific mode T=1 (TA2 01) at TA1 96.
    static let uTrustFIDO = "3B F6 96 00 00 91 01 31 FE 45 75 54 72 75 73 74 5B"

    /// A TPDU contact reader at 4 MHz up to 344 086 bps that does neither PPS nor negotiation.
    static func tpduReader(
        features: CCIDFeatures = [.tpduLevel, .automaticVoltageSelection],
        maxDataRate: UInt32 = 344_086
    ) -> CCIDClassDescriptor {
        CCIDClassDescriptor(
            protocols: [.t0, .t1], defaultClock: 4000, maximumClock: 4000, dataRate: 10752,
            maxDataRate: maxDataRate, features: features, maxMessageLength: 271)
    }

    @Test func realATRsParse() throws {
        let javaCOS = try Self.atr(Self.javaCOS)
        #expect(javaCOS.offeredProtocols == [.t1] && javaCOS.defaultProtocol == .t1)
        #expect(
            javaCOS.ta1 == 0x95 && javaCOS.t1IFSC == 254 && javaCOS.t1WaitingIntegers == 0x9F
                && javaCOS.specificMode == nil)
        let smartCafe = try Self.atr(Self.smartCafe)
        #expect(smartCafe.offeredProtocols == [.t0, .t1] && smartCafe.defaultProtocol == .t0)
        #expect(smartCafe.ta1 == 0x18 && smartCafe.tc1 == 0x00 && smartCafe.t1WaitingIntegers == 0x45)
        let sim = try Self.atr(Self.sim)
        #expect(
            sim.offeredProtocols == [.t0] && sim.protocols == [0, 15] && sim.t15FirstTA == 0xC7 && sim.clockStop == 3)
        let idPrime = try Self.atr(Self.idPrime)
        #expect(idPrime.offeredProtocols == [.t0] && idPrime.ta1 == 0x96 && idPrime.tc1 == 0x00 && idPrime.ta2 == nil)
        let nagra = try Self.atr(Self.nagra)
        #expect(nagra.ta2 == 0x80 && nagra.tc1 == 0xFF && nagra.tc2 == 0x1C)
        #expect(nagra.specificMode?.protocol == 0 && nagra.specificMode?.canChange == false)
        let fido = try Self.atr(Self.uTrustFIDO)
        #expect(fido.specificMode?.protocol == 1 && fido.specificMode?.canChange == true && fido.ta1 == 0x96)
    }

    @Test func factorsTables() {
        #expect(TransmissionFactors.default.baudRate(clockKHz: 4000) == 10752)
        #expect(TransmissionFactors(rawValue: 0x96).baudRate(clockKHz: 4000) == 250_000)
        #expect(TransmissionFactors(rawValue: 0x18).baudRate(clockKHz: 4000) == 129_032)
        #expect(TransmissionFactors(rawValue: 0x71).clockRateConversion == nil)
        #expect(
            TransmissionFactors(rawValue: 0x96).slowerAlternatives.map(\.rawValue) == [0x95, 0x94, 0x93, 0x92, 0x91])
        #expect(TransmissionFactors(rawValue: 0x18).slowerAlternatives.map(\.rawValue) == [0x14, 0x13, 0x12, 0x11])
    }

    @Test func t1OnlyCardAtTA1GetsAPPSWithPPS1() throws {
        let selection = try ProtocolSelection(atr: try Self.atr(Self.javaCOS), descriptor: Self.tpduReader())
        #expect(selection.transmissionProtocol == .t1 && selection.factors.rawValue == 0x95)
        #expect(selection.ppsRequest?.bytes == [0xFF, 0x11, 0x95, 0x7B])
        #expect(selection.parameters()?.bytes == [0x95, 0x10, 0x00, 0x9F, 0x00, 0xFE, 0x00])
    }

    @Test func dualCardAutomaticIsT1AndExplicitT0IsHonoured() throws {
        let atr = try Self.atr(Self.smartCafe)
        let automatic = try ProtocolSelection(atr: atr, descriptor: Self.tpduReader())
        #expect(automatic.transmissionProtocol == .t1)
        #expect(automatic.ppsRequest?.bytes == [0xFF, 0x11, 0x18, 0xF6])
        #expect(automatic.parameters()?.bytes == [0x18, 0x10, 0x00, 0x45, 0x00, 0xFE, 0x00])
        let t0 = try ProtocolSelection(atr: atr, descriptor: Self.tpduReader(), preference: .t0)
        #expect(t0.transmissionProtocol == .t0)
        #expect(t0.ppsRequest?.bytes == [0xFF, 0x10, 0x18, 0xF7])
        #expect(t0.parameters()?.protocolNumber == 0)
        #expect(t0.parameters()?.bytes == [0x18, 0x00, 0x00, 0x0A, 0x00])
    }

    @Test func fallbacksAfterRefusedPPS() throws {
        let first = try ProtocolSelection(atr: try Self.atr(Self.smartCafe), descriptor: Self.tpduReader())
        let second = try #require(first.fallback)
        #expect(second.transmissionProtocol == .t1 && second.factors == .default)
        #expect(second.ppsRequest?.bytes == [0xFF, 0x01, 0xFE])
        let third = try #require(second.fallback)
        #expect(third.transmissionProtocol == .t0 && third.ppsRequest == nil && third.fallback == nil)
        #expect(third.parameters()?.bytes == [0x11, 0x00, 0x00, 0x0A, 0x00])
        // An explicit preference never falls back to another protocol.
        let explicit = try ProtocolSelection(
            atr: try Self.atr(Self.smartCafe), descriptor: Self.tpduReader(), preference: .t1)
        #expect(explicit.fallback?.fallback == nil)
    }

    @Test func simCardT0WithClockStopFromT15() throws {
        var features: CCIDFeatures = [.tpduLevel]
        features.insert(.canStopClock)
        let selection = try ProtocolSelection(
            atr: try Self.atr(Self.sim), descriptor: Self.tpduReader(features: features))
        #expect(selection.transmissionProtocol == .t0)
        #expect(selection.ppsRequest?.bytes == [0xFF, 0x10, 0x96, 0x79])
        #expect(selection.parameters()?.bytes == [0x96, 0x00, 0x00, 0x0A, 0x03])
        #expect(selection.parameters(at: .default)?.bytes == [0x11, 0x00, 0x00, 0x0A, 0x03])
    }

    @Test func tooFastCardIsSlowedToWhatTheReaderCanDo() throws {
        let atr = try Self.atr(Self.idPrime)
        // 250 000 and 125 000 bps exceed 115 200; 0x94 (62 500 bps) fits.
        let limited = try ProtocolSelection(atr: atr, descriptor: Self.tpduReader(maxDataRate: 115_200))
        #expect(limited.factors.rawValue == 0x94)
        #expect(limited.ppsRequest?.bytes == [0xFF, 0x10, 0x94, 0x7B])
        // A reader listing its rates is held to them (±2 bps).
        let listed = try ProtocolSelection(
            atr: atr, descriptor: Self.tpduReader(), supportedDataRates: [10752, 62501, 31250])
        #expect(listed.factors.rawValue == 0x94)
        let none = try ProtocolSelection(atr: atr, descriptor: Self.tpduReader(), supportedDataRates: [10752, 21505])
        #expect(none.factors == .default && none.ppsRequest == nil)
        // A listed rate above the reader's own dwMaxDataRate is not taken (pcsc-lite's driver
        // checks the maximum first): 250 000 bps is listed, 115 200 is the maximum.
        let aboveMaximum = try ProtocolSelection(
            atr: atr, descriptor: Self.tpduReader(maxDataRate: 115_200),
            supportedDataRates: [10752, 250_000, 62501])
        #expect(aboveMaximum.factors.rawValue == 0x94)
    }

    @Test func specificModeTakesNoPPSAndKeepsTA1() throws {
        let nagra = try ProtocolSelection(atr: try Self.atr(Self.nagra), descriptor: Self.tpduReader())
        #expect(nagra.isSpecificMode && nagra.transmissionProtocol == .t0 && nagra.ppsRequest == nil)
        #expect(nagra.parameters()?.bytes == [0x95, 0x00, 0xFF, 0x1C, 0x00])
        #expect(throws: ProtocolSelectionError.protocolNotOffered(.t1, card: [.t0], reader: [.t0, .t1])) {
            try ProtocolSelection(atr: try Self.atr(Self.nagra), descriptor: Self.tpduReader(), preference: .t1)
        }
        #expect(
            throws: ProtocolSelectionError.specificModeSpeedUnsupported(
                TransmissionFactors(rawValue: 0x96), bitsPerSecond: 250_000)
        ) {
            try ProtocolSelection(atr: try Self.atr(Self.uTrustFIDO), descriptor: Self.tpduReader(maxDataRate: 115_200))
        }
    }

    @Test func readerFeaturesDecidePPSAndSetParameters() throws {
        let atr = try Self.atr(Self.idPrime)
        let automaticPPS = try ProtocolSelection(
            atr: atr, descriptor: Self.tpduReader(features: [.tpduLevel, .automaticPPS]))
        #expect(automaticPPS.ppsRequest == nil && automaticPPS.parameters()?.bytes.first == 0x96)
        let negotiates = try ProtocolSelection(
            atr: atr, descriptor: Self.tpduReader(features: [.tpduLevel, .automaticParameterNegotiation]))
        #expect(negotiates.ppsRequest == nil && negotiates.parameters() == nil)
        // An APDU reader cannot carry a PPS: without 0x80 the card stays at the default speed.
        let apdu = try ProtocolSelection(atr: atr, descriptor: Self.tpduReader(features: [.shortAPDULevel]))
        #expect(apdu.ppsRequest == nil && apdu.parameters()?.bytes.first == 0x11)
        #expect(throws: ProtocolSelectionError.protocolNotOffered(.t1, card: [.t0], reader: [.t0, .t1])) {
            try ProtocolSelection(atr: atr, descriptor: Self.tpduReader(), preference: .t1)
        }
        let t1Reader = CCIDClassDescriptor(protocols: .t1, features: [.tpduLevel], maxMessageLength: 271)
        #expect(throws: ProtocolSelectionError.noCommonProtocol(card: [.t0], reader: [.t1])) {
            try ProtocolSelection(atr: atr, descriptor: t1Reader)
        }
    }

    @Test func ppsAnswersAreJudgedAsISO7816_3Says() {
        let request = PPSRequest(protocol: .t1, factors: TransmissionFactors(rawValue: 0x18))
        #expect(request.bytes == [0xFF, 0x11, 0x18, 0xF6])
        #expect(request.outcome(of: [0xFF, 0x11, 0x18, 0xF6]) == .accepted(TransmissionFactors(rawValue: 0x18)))
        #expect(request.outcome(of: [0xFF, 0x01, 0xFE]) == .accepted(.default))
        for wrong: [UInt8] in [
            [0xFF, 0x11, 0x13, 0xFD], [0xFF, 0x11, 0x18, 0xF7], [0xFF, 0x10, 0x18, 0xF7], [0xFF, 0x01],
            [0xFF, 0x31, 0x18, 0x00, 0xD6], [0xFE, 0x11, 0x18, 0xF7],
        ] {
            if case .accepted = request.outcome(of: wrong) { Issue.record("accepted \(wrong)") }
        }
    }

    @Test func setParametersFramesFollowTheCCIDLayout() {
        // bMessageType 61, dwLength, bSlot, bSeq, bProtocolNum, abRFU (2), abProtocolDataStructure.
        let t0 = CCIDCommand(
            slot: 0, sequence: 5,
            kind: .setParameters(
                .t0(
                    findexDindex: 0x96, tcckst: 0x00, guardTime: 0x00,
                    waitingInteger: 0x0A, clockStop: 0x03)))
        #expect(t0.encoded() == [0x61, 0x05, 0, 0, 0, 0x00, 0x05, 0x00, 0x00, 0x00, 0x96, 0x00, 0x00, 0x0A, 0x03])
        let t1 = CCIDCommand(
            slot: 1, sequence: 6,
            kind: .setParameters(
                .t1(
                    findexDindex: 0x18, tcckst: 0x11, guardTime: 0x02,
                    waitingIntegers: 0x45, clockStop: 0x00, ifsc: 0xFE, nad: 0x00)))
        #expect(
            t1.encoded() == [
                0x61, 0x07, 0, 0, 0, 0x01, 0x06, 0x01, 0x00, 0x00, 0x18, 0x11, 0x02, 0x45, 0x00, 0xFE, 0x00,
            ])
        // The PPS travels as the data of an ordinary XfrBlock.
        let pps = CCIDCommand(
            slot: 0, sequence: 7,
            kind: .xfrBlock(
                blockWaitingTimeMultiplier: 0, levelParameter: 0,
                data: [0xFF, 0x10, 0x96, 0x79]))
        #expect(pps.encoded() == [0x6F, 0x04, 0, 0, 0, 0x00, 0x07, 0x00, 0x00, 0x00, 0xFF, 0x10, 0x96, 0x79])
    }
}
