// Tests of the DESFire client (issue 5).
