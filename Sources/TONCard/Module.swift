// TON Labs security card client. Sources arrive with issue 6.
