"""Secret masking (beyond Pi, setting ``security.maskSecrets``, on by default).

The values of configured credentials are replaced by ``[redacted:<name>]`` in what tools and
``!command`` return, before the model, the session file, events and exports see them
(``sources`` says which values count, ``masker`` how they are replaced, ``session`` builds the
masker a live session and the HTML export use).
"""

from pi_harness.coding.secrets.masker import SecretMasker, marker
from pi_harness.coding.secrets.session import masker_for, masks_secrets
from pi_harness.coding.secrets.sources import MIN_SECRET_LENGTH, NamedSecret, collect_secrets, is_secret_env_name

__all__ = [
    "MIN_SECRET_LENGTH",
    "NamedSecret",
    "SecretMasker",
    "collect_secrets",
    "is_secret_env_name",
    "marker",
    "masker_for",
    "masks_secrets",
]
