# Misuses of tl.histogram are located errors.
# RUN: not tilec compile %s -k floats -s '*fp32' 2>&1 | FileCheck %s --check-prefix=FLOAT
# RUN: not tilec compile %s -k bins -s '*i32' 2>&1 | FileCheck %s --check-prefix=BINS
# RUN: not tilec compile %s -k rank2 -s '*i32' 2>&1 | FileCheck %s --check-prefix=RANK
import tilec.language as tl


def floats(p):
    h = tl.histogram(tl.load(p + tl.arange(0, 64)), 16)
# FLOAT: histogram.py:[[@LINE-1]]:{{[0-9]+}}: error: tl.histogram needs a 1-D tensor of integers, got tensor<64xfp32>

def bins(p):
    h = tl.histogram(tl.load(p + tl.arange(0, 64)), 10)
# BINS: histogram.py:[[@LINE-1]]:{{[0-9]+}}: error: num_bins must be a power of two (the result is a tensor), got 10

def rank2(p):
    x = tl.load(p + tl.arange(0, 8)[:, None] * 8 + tl.arange(0, 8)[None, :])
    h = tl.histogram(x, 16)
# RANK: histogram.py:[[@LINE-1]]:{{[0-9]+}}: error: tl.histogram needs a 1-D tensor of integers, got tensor<8x8xi32>
