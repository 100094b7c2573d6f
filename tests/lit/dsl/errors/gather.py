# Misuses of tl.gather are located errors.
# RUN: not tilec compile %s -k rank -s '*fp32' 2>&1 | FileCheck %s --check-prefix=RANK
# RUN: not tilec compile %s -k dims -s '*fp32' 2>&1 | FileCheck %s --check-prefix=DIMS
# RUN: not tilec compile %s -k float_index -s '*fp32' 2>&1 | FileCheck %s --check-prefix=FLOAT
# RUN: not tilec compile %s -k axis -s '*fp32' 2>&1 | FileCheck %s --check-prefix=AXIS
# RUN: not tilec compile %s -k scalar -s '*fp32' 2>&1 | FileCheck %s --check-prefix=SCALAR
import tilec.language as tl


def rank(p):
    x = tl.load(p + tl.arange(0, 64)[:, None] * 8 + tl.arange(0, 8)[None, :])
    y = tl.gather(x, tl.arange(0, 8), 0)
# RANK: gather.py:[[@LINE-1]]:{{[0-9]+}}: error: tl.gather's index must have the source's rank

def dims(p):
    x = tl.load(p + tl.arange(0, 64)[:, None] * 8 + tl.arange(0, 8)[None, :])
    i = tl.zeros((32, 4), tl.int32)
    y = tl.gather(x, i, 1)
# DIMS: gather.py:[[@LINE-1]]:{{[0-9]+}}: error: tl.gather's index must match the source in every dimension but axis 1

def float_index(p):
    x = tl.load(p + tl.arange(0, 64))
    y = tl.gather(x, x, 0)
# FLOAT: gather.py:[[@LINE-1]]:{{[0-9]+}}: error: tl.gather's index must be a tensor of integers, got tensor<64xfp32>

def axis(p):
    x = tl.load(p + tl.arange(0, 64))
    y = tl.gather(x, tl.arange(0, 64), 1)
# AXIS: gather.py:[[@LINE-1]]:{{[0-9]+}}: error: axis 1 is out of range for rank 1

def scalar(p):
    y = tl.gather(tl.load(p), tl.arange(0, 64), 0)
# SCALAR: gather.py:[[@LINE-1]]:{{[0-9]+}}: error: tl.gather needs a tensor, got
