// The card models moved to CardFlowSimulatorCards (no CCID); the virtual CCID reader places them, and
// code that imported CardSimulator for a card model keeps building.
@_exported import CardFlowSimulatorCards
