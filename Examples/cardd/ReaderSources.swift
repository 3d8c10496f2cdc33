import CardFlow
import CardFlowCCID
import CardFlowPCSC
import CardFlowUFR
import CardFlowVPCD
import CardSimulatorReaders

/// The reader backends the configuration's `"readers"` may name, one entry each: a new backend
/// is one line here.
let readerSources: [any ReaderSource] = [
    USBReaderSource(), PCSCReaderSource(), VPCDReaderSource(), SimulatorReaderSource(),
    UFRReaderSource(),
]
