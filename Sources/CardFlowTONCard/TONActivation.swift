import CardFlow

/// Card activation as one resumable ``/CardFlow/Flow`` (the seed's activation chain without its
/// five-second pauses: pacing between steps is the ``/CardFlow/SessionPolicy``'s cooldown and reconnect).
///
/// Steps: root key status → generate the seed if there is none → the applet must wait for
/// two-factor authentication → the hashes of the encrypted common secret and password must
/// match the activation data (and the serial number is read) → VERIFY_PASSWORD and store the
/// HMAC key under the serial number → CHANGE_PIN 5555 → `pin` → the applet must be personalized.
///
/// ```swift
/// var policy = SessionPolicy()
/// policy.identity = TONActivation.cardIdentity           // recognise the card by its CSN
/// let flow = TONActivation.flow(activation: activation, pin: try TONPin("1234"), hmacKeys: keys)
/// let run = reader.run(flow, policy: policy)
/// for await event in run.progress { print(event) }
/// let state = try await run.value                         // .personalized
/// ```
public enum TONActivation {
    /// The seed's result of a successful activation.
    public static let successMessage = TONAppletState.personalized.message

    /// The activation flow; its value is the final applet state (always `.personalized`).
    public static func flow(
        activation: TONActivationData, pin: TONPin = .default,
        hmacKeys: TONHmacKeyStore
    ) -> Flow<TONAppletState> {
        flow(activationFor: { _ in activation }, pin: pin, hmacKeys: hmacKeys)
    }

    /// The activation flow for a station that activates many cards: `activationFor` finds the
    /// card's activation data (the backend gives it per serial number) when the flow first
    /// needs it — after the seed exists, so the applet's serial number can be read — e.g. from
    /// a key store under the serial. It runs again when the card came back after a lift.
    ///
    /// ```swift
    /// let flow = TONActivation.flow(activationFor: { session in
    ///     let serial = try await TONWallet(channel: session, hmacKeys: keys).serialNumber()
    ///     return try await activationData(for: serial)          // the caller's lookup
    /// }, hmacKeys: keys)
    /// ```
    public static func flow(
        activationFor activationData: @escaping @Sendable (CardSession) async throws -> TONActivationData,
        pin: TONPin = .default, hmacKeys: TONHmacKeyStore
    ) -> Flow<TONAppletState> {
        // Every step hides the password and PINs from traces (a session opened after the card
        // came back starts without the rule; adding it again is harmless).
        @Sendable func wallet(_ session: CardSession) async -> TONWallet {
            await session.addRedaction(TONWallet.redaction)
            return TONWallet(channel: session, hmacKeys: hmacKeys)
        }
        let pinIsDefault = pin == .default
        return Flow.start("root key status") { session in
            try await (await wallet(session)).coinManager.rootKeyStatus()
        }
        .then(
            "generate seed", idempotent: false,
            verify: { (_: Bool, session: CardSession) -> Void? in
                // Done when the seed exists (whoever made it).
                try await (await wallet(session)).coinManager.rootKeyStatus() ? () : nil
            }
        ) { (generated: Bool, session: CardSession) in
            guard !generated else { return }
            let manager = await wallet(session).coinManager
            try await manager.resetWallet()
            try await manager.generateSeed(pin: .default)
        }
        .then("applet state") { (_: Void, session: CardSession) in
            try await (await wallet(session)).selectAndRequire(.waitingForAuthentication)
        }
        .then("check hashes") { (_: Void, session: CardSession) -> CheckedCard in
            let activation = try await activationData(session)
            let wallet = await wallet(session)
            try await wallet.selectAndCheck(.getHashOfEncryptedCommonSecret)
            try await wallet.checkActivationHashes(activation)
            return CheckedCard(serial: try await wallet.readSerialNumber(), activation: activation)
        }
        .then(
            "verify password", idempotent: false,
            verify: { (card: CheckedCard, session: CardSession) -> TONSerialNumber? in
                // Done when the applet is past two-factor authentication; the key is derived again.
                guard try await (await wallet(session)).appletState() == .personalized else { return nil }
                try await hmacKeys.createKey(from: card.activation, serialNumber: card.serial)
                return card.serial
            }
        ) { (card: CheckedCard, session: CardSession) -> TONSerialNumber in
            try await (await wallet(session)).verifyPassword(card.activation)
            try await hmacKeys.createKey(from: card.activation, serialNumber: card.serial)
            return card.serial
        }
        // Changing 5555 to 5555 can be repeated; another PIN cannot be told apart from a
        // failure after the card left, so that step is not resumed blindly.
        .then("set PIN", idempotent: pinIsDefault) { (_: TONSerialNumber, session: CardSession) in
            try await (await wallet(session)).coinManager.changePin(old: .default, new: pin)
        }
        .then("personalized") { (_: Void, session: CardSession) -> TONAppletState in
            let wallet = await wallet(session)
            try await wallet.selectAndRequire(.personalized)
            return TONAppletState.personalized
        }
    }

    /// What "check hashes" passes on: the card's serial and the activation data that matched it.
    struct CheckedCard: Sendable {
        let serial: TONSerialNumber
        let activation: TONActivationData
    }

    /// Recognises a TON card by the CoinManager's card serial number (S_C, GET_CSN), which
    /// every card answers in every state. Use it for activation: the applet's 24-digit serial
    /// cannot be read before the seed exists (SELECT answers `6F02`), so an identity read
    /// before and after the flow's seed step would differ.
    public static let cardIdentity = CardIdentityResolver { session in
        // Transport errors (card lifted, cancellation) propagate; only refusals fall back.
        if try await session.transmit(TONCommands.selectCoinManager).statusWord.isSuccess {
            let answer = try await session.transmit(TONCommands.getCSN)
            if answer.statusWord.isSuccess, !answer.data.isEmpty { return Array("ton-csn:".utf8) + answer.data }
        }
        let identity = await session.identity
        return identity.uid ?? identity.atr
    }

    /// Recognises an activated TON card by its 24-digit serial number (S_T, GET_SERIAL_NUMBER),
    /// the number its HMAC key is stored under; a card whose applet cannot be selected (no seed
    /// yet) is recognised by UID or ATR instead (so use ``cardIdentity`` for activation).
    public static let serialNumberIdentity = CardIdentityResolver { session in
        // Transport errors (card lifted, cancellation) propagate; only refusals fall back.
        if try await session.transmit(TONCommands.selectApplet).statusWord.isSuccess {
            let answer = try await session.transmit(TONCommands.getSerialNumber)
            if answer.statusWord.isSuccess, let serial = try? TONSerialNumber(wireBytes: answer.data) {
                return Array("ton-sn:".utf8) + serial.wireBytes
            }
        }
        let identity = await session.identity
        return identity.uid ?? identity.atr
    }
}
