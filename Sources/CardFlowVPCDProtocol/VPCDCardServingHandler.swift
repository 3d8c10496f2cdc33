import CardFlowHex
import Logging
import NIOCore

/// The card side's end of one connection: answers the reader's messages through a ``VPCDCard``,
/// one at a time, in arrival order, on the connection's event loop.
///
/// Each message is answered by a task on the loop's own executor (``EventLoopTaskExecutor``), so
/// an in-memory card answers without a thread hand-over. A reader that sends faster than the card
/// answers is read no further once ``maximumQueued`` messages wait; what one socket read already
/// brought (NIO's receive buffer, at most 64 KiB) is kept, so memory stays bounded by that. A
/// message the protocol cannot carry closes the connection; ``closed`` then fails with the error.
final class VPCDCardServingHandler: ChannelDuplexHandler {
    typealias InboundIn = [UInt8]
    typealias OutboundIn = [UInt8]
    typealias OutboundOut = [UInt8]

    /// Messages received and not yet answered beyond which the socket is not read again.
    static let maximumQueued = 4

    private let card: any VPCDCard
    private let logger: Logger
    private let executor: EventLoopTaskExecutor
    private let closedPromise: EventLoopPromise<Void>
    private var isClosed = false
    private var context: ChannelHandlerContext?
    private var queued = CircularBuffer<VPCDMessage>()
    private var answering: Task<Void, Never>?
    private var readHeld = false
    private var failure: (any Error)?

    init(card: any VPCDCard, logger: Logger, eventLoop: any EventLoop) {
        self.card = card
        self.logger = logger
        self.executor = EventLoopTaskExecutor(eventLoop: eventLoop)
        self.closedPromise = eventLoop.makePromise()
    }

    /// Succeeds when the reader closes the connection; fails with the error that closed it.
    var closed: EventLoopFuture<Void> { closedPromise.futureResult }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        do {
            queued.append(try VPCDMessage(payload: unwrapInboundIn(data)))
        } catch {
            fail(error)
            return
        }
        answerNext()
    }

    func read(context: ChannelHandlerContext) {
        if queued.count >= Self.maximumQueued {
            readHeld = true
        } else {
            context.read()
        }
    }

    // MARK: - Answering

    private func answerNext() {
        guard answering == nil, !isClosed, let message = queued.popFirst(), let context else { return }
        answering = Self.startAnswering(
            message, card: card, logger: logger, executor: executor,
            handler: NIOLoopBound(self, eventLoop: context.eventLoop), loop: context.eventLoop)
    }

    private static func startAnswering(
        _ message: VPCDMessage, card: any VPCDCard, logger: Logger,
        executor: EventLoopTaskExecutor, handler: NIOLoopBound<VPCDCardServingHandler>,
        loop: any EventLoop
    ) -> Task<Void, Never> {
        Task(executorPreference: executor) {
            await answer(message, card: card, logger: logger, handler: handler, loop: loop)
        }
    }

    private static func answer(
        _ message: VPCDMessage, card: any VPCDCard, logger: Logger,
        handler: NIOLoopBound<VPCDCardServingHandler>, loop: any EventLoop
    ) async {
        let answer = await result(of: message, card: card, logger: logger)
        // The task runs on the loop unless the card left it at the end; then go back.
        if loop.inEventLoop {
            handler.value.answered(answer)
        } else {
            loop.execute { handler.value.answered(answer) }
        }
    }

    private func answered(_ answer: Result<[UInt8]?, VPCDError>) {
        answering = nil
        guard !isClosed, let context else { return }
        switch answer {
        case .success(let payload?):
            context.writeAndFlush(wrapOutboundOut(payload), promise: nil)
        case .success(nil):
            break
        case .failure(let error):
            fail(error)
            return
        }
        if readHeld, queued.count < Self.maximumQueued {
            readHeld = false
            context.read()
        }
        answerNext()
    }

    private func fail(_ error: any Error) {
        if failure == nil { failure = error }
        context?.close(promise: nil)
    }

    private func finish() {
        guard !isClosed else { return }
        isClosed = true
        answering?.cancel()
        queued.removeAll()
        if let failure {
            closedPromise.fail(failure)
        } else {
            closedPromise.succeed()
        }
    }

    private static func result(of message: VPCDMessage, card: any VPCDCard, logger: Logger) async -> Result<
        [UInt8]?, VPCDError
    > {
        do throws(VPCDError) {
            return .success(try await answer(message, card: card, logger: logger))
        } catch {
            return .failure(error)
        }
    }

    /// What the card answers to one message (nil: no answer is sent).
    private static func answer(_ message: VPCDMessage, card: any VPCDCard, logger: Logger) async throws(VPCDError)
        -> [UInt8]?
    {
        switch message {
        case .powerOff:
            logger.debug("vpcd: power off")
            await card.powerOff()
            return nil
        case .powerOn:
            logger.debug("vpcd: power on")
            await card.powerOn()
            return nil
        case .reset:
            logger.debug("vpcd: reset")
            await card.reset()
            return nil
        case .getATR:
            let atr = await card.atr()
            guard !atr.isEmpty, atr.count <= VPCDFraming.maximumFramablePayload else {
                // No answer would be worse: the reader would wait for its timeout.
                logger.error("vpcd: the card's ATR cannot be sent; disconnecting", metadata: ["length": "\(atr.count)"])
                throw .notFramable(length: atr.count)
            }
            logger.trace("vpcd: ATR \(HexFormat.string(atr))")
            return atr
        case .unknownControl(let byte):
            logger.warning("vpcd: unknown control message ignored", metadata: ["byte": "\(byte)"])
            return nil
        case .command(let apdu):
            logger.trace(">>> vpcd command \(HexFormat.string(apdu))")
            var response: [UInt8]
            do {
                response = try await card.transmit(apdu)
            } catch {
                logger.error(
                    "vpcd: the card failed; answering 6F00",
                    metadata: [
                        "command": "\(HexFormat.string(Array(apdu.prefix(4))))", "error": "\(error)",
                    ])
                response = VPCDCardExporter.failureStatus
            }
            if response.count < 2 || response.count > VPCDFraming.maximumFramablePayload {
                logger.error(
                    "vpcd: the card's answer cannot be a response APDU; answering 6F00",
                    metadata: ["length": "\(response.count)"])
                response = VPCDCardExporter.failureStatus
            }
            logger.trace("<<< vpcd response \(HexFormat.string(response))")
            return response
        }
    }
}
