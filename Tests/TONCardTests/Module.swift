// Tests of the TON card client (issue 6).
