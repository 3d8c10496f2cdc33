// MIFARE DESFire EV1 client. Sources arrive with issue 5.
