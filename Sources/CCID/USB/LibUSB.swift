import CLibUSB
