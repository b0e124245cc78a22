"""Which ARNs `bedrock:InvokeModel` must name for a configured model (IAM for Bedrock, item 4 of issue 12).

A stage's ``bedrock_model_id`` (and ``titan_model_id``) may be:
- a foundation model id, ``anthropic.claude-3-5-haiku-20241022-v1:0``, served on demand in the region;
- a cross-region (system) inference profile id, ``us.anthropic.claude-3-5-haiku-20241022-v1:0``: most
  regions serve newer models only this way. Bedrock then checks IAM twice, on the profile in the
  stack's region and on the foundation model in whichever region of the geography the request lands,
  so both must be granted;
- the ARN of either (``arn:aws:bedrock:...:inference-profile/us.anthropic...``).
An application inference profile (``application-inference-profile/<random id>``) hides its model: it
is refused here, since the model's ARN could not be granted.
"""

from __future__ import annotations

import re

from infra.config import ConfigError

# geography prefixes of the system-defined inference profiles
GEOGRAPHIES = ("us", "us-gov", "eu", "apac", "jp", "au", "ca", "global")
_PROFILE = re.compile(rf"^(?P<geo>{'|'.join(re.escape(g) for g in GEOGRAPHIES)})\.(?P<model>[a-z0-9-]+\..+)$")
_ARN = re.compile(r"^arn:[a-z-]+:bedrock:[a-z0-9-]*:\d*:(?P<kind>foundation-model|inference-profile|"
                  r"application-inference-profile)/(?P<id>.+)$")
_REGION = re.compile(r"^[a-z]{2}(-gov)?-[a-z]+-\d$")  # a concrete region (not a CloudFormation token)
# the region prefix each geography's profiles are served from
_REGION_GEO = {"us": ("us-",), "us-gov": ("us-gov-",), "eu": ("eu-",), "apac": ("ap-",), "jp": ("ap-northeast-",),
               "au": ("ap-southeast-",), "ca": ("ca-",), "global": ("",)}


class BedrockModelError(ConfigError):
    pass


def model_arns(model_id: str, partition: str, region: str, account: str) -> list[str]:
    """The resources of `bedrock:InvokeModel` for ``model_id`` called from ``region``."""
    match = _ARN.match(model_id)
    if match:
        if match.group("kind") == "application-inference-profile":
            raise BedrockModelError(f"{model_id}: an application inference profile hides its model; name the "
                                    "system inference profile or the model instead")
        model_id = match.group("id")
    profile = _PROFILE.match(model_id)
    if profile is None:
        return [f"arn:{partition}:bedrock:{region}::foundation-model/{model_id}"]
    geo = profile.group("geo")
    if _REGION.match(region) and not any(region.startswith(p) for p in _REGION_GEO[geo]):
        raise BedrockModelError(f"{model_id}: a {geo!r} inference profile is not served in {region}")
    return [f"arn:{partition}:bedrock:{region}:{account}:inference-profile/{model_id}",
            # the profile routes to any region of its geography: the model there is checked too
            f"arn:{partition}:bedrock:*::foundation-model/{profile.group('model')}"]
