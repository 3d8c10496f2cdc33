import NIOCore

/// Serves a simulated uFR reader on a byte stream (a TCP connection, a pseudo-terminal): commands
/// in the order they come, answers written back in that order.
enum UFRStreamServing {
    static func serve(_ bytes: AsyncStream<[UInt8]>, on channel: any Channel, reader: SimulatedUFRReader) async {
        var parser = UFRCommandParser()
        for await chunk in bytes {
            for event in parser.feed(chunk) {
                let answer: [UInt8]
                switch event {
                case .reply(let immediate): answer = immediate
                case .command(let code, let parameter0, let parameter1, let ext):
                    answer = await reader.run(code: code, parameter0: parameter0, parameter1: parameter1, ext: ext)
                }
                guard !answer.isEmpty else { continue }
                try? await channel.writeAndFlush(channel.allocator.buffer(bytes: answer)).get()
            }
        }
    }
}
