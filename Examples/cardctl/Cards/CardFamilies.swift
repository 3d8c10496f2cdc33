import CardFlow
import CardFlowDESFire
import CardFlowISO15693
import CardFlowNDEF
import CardFlowStorageCards
import CardFlowTONCard

/// The card families `identify` recognises, one entry each (a new family is its detector in its
/// own module and one line here), most specific first.
let cardFamilies = CardFamilyDetection([
    ISO15693FamilyDetector(), TONFamilyDetector(), DESFireFamilyDetector(), ClassicFamilyDetector(),
    FeliCaFamilyDetector(), NDEFFamilyDetector(), NTAGFamilyDetector(),
])
