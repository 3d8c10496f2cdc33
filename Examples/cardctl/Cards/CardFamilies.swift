import CardFlow
import DESFire
import ISO15693
import NDEF
import TONCard

/// The card families `identify` recognises, one entry each (a new family is its detector in its
/// own module and one line here), most specific first.
let cardFamilies = CardFamilyDetection([
    ISO15693FamilyDetector(), TONFamilyDetector(), DESFireFamilyDetector(), NDEFFamilyDetector(),
])
