"""torchrun for Debian's torch 1.13 on Python 3.11.

Python 3.11 no longer yields zero-valued IntFlag members when iterating, so
torch's Std.from_str("0") returns None and torchrun crashes at start. This parses
the redirect/tee values itself and then runs torch.distributed.run unchanged.
"""
import re
import sys

from torch.distributed.elastic.multiprocessing import api

_original = api.Std.from_str.__func__


def _from_str(cls, text):
    if re.match(api._VALUE_REGEX, text):
        return cls(int(text))
    if re.match(api._MAPPING_REGEX, text):
        return {int(k): cls(int(v)) for k, v in (p.split(":") for p in text.split(","))}
    return _original(cls, text)


api.Std.from_str = classmethod(_from_str)

from torch.distributed.run import main  # noqa: E402

sys.exit(main())
