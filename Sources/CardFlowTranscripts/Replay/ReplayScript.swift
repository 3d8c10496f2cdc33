/// A transcript as the replay reader plays it: per segment, the host's commands in order, each
/// with the reader's recorded answers and how the exchange ended.
struct ReplayScript: Sendable {
    /// One recorded command and what followed it.
    struct Step: Sendable {
        /// The host's command as recorded.
        let command: RecordedFrame
        /// The reader's answers with the command's bSeq, in order (time extensions first).
        var answers: [RecordedFrame] = []
        /// How the exchange ended after the answers.
        var ending: Ending = .answered
    }

    /// How a recorded exchange ended.
    enum Ending: Sendable, Hashable {
        /// With its last answer.
        case answered
        /// The host's write timed out (LIBUSB_ERROR_TIMEOUT on bulk-OUT).
        case writeTimedOut
        /// A read timed out after the answers (if any) came.
        case readTimedOut
    }

    /// The steps of each segment, in segment order.
    let segments: [[Step]]
    /// The interrupt messages of the whole log, in order.
    let interrupts: [[UInt8]]

    /// The script of `transcript`'s frames exchanged with the libccid reader index `readerIndex`.
    init(_ transcript: Transcript, readerIndex: Int) {
        var interrupts: [[UInt8]] = []
        segments = transcript.segments.map { segment in
            var steps: [Step] = []
            for event in segment.events {
                switch event {
                case .frame(let frame) where frame.readerIndex == readerIndex:
                    if frame.direction == .bulkOut {
                        steps.append(Step(command: frame))
                    } else if let last = steps.indices.last, steps[last].command.sequence == frame.sequence {
                        // An answer to a command before the segment began has no step to go with.
                        steps[last].answers.append(frame)
                    }
                case .failure(let failure):
                    guard let last = steps.indices.last else { continue }
                    switch failure.kind {
                    case .writeTimeout where steps[last].answers.isEmpty: steps[last].ending = .writeTimedOut
                    case .readTimeout: steps[last].ending = .readTimedOut
                    default: continue
                    }
                case .interrupt(let message): interrupts.append(message)
                default: continue
                }
            }
            return steps
        }
        self.interrupts = interrupts
    }

    /// The libccid reader index most of the transcript's frames carry (0 when there are none).
    static func mainReaderIndex(of transcript: Transcript) -> Int {
        var counts: [Int: Int] = [:]
        for segment in transcript.segments {
            for frame in segment.frames { counts[frame.readerIndex, default: 0] += 1 }
        }
        return counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key ?? 0
    }
}
