"""A profile is parsed once for all the frames that come with it, and again once changed."""
from __future__ import annotations

from vision.parsed_profiles import ParsedProfiles


def test_a_profile_is_parsed_once_and_again_when_changed_in_place():
    parsed = []

    def parse(profile: dict) -> tuple:
        parsed.append(profile["value"])
        return (profile["value"],)

    profiles = ParsedProfiles(parse, kept=2)
    profile = {"value": [1, 2]}
    first = profiles(profile)
    assert profiles(profile) is first and parsed == [[1, 2]]
    profile["value"].append(3)  # changed in place: the copy kept tells
    assert profiles(profile) == ([1, 2, 3],) and len(parsed) == 2
    assert profiles({"value": [1, 2, 3]}) == ([1, 2, 3],) and len(parsed) == 3  # an equal one, not the same


def test_only_the_last_few_profiles_are_kept():
    profiles = ParsedProfiles(lambda profile: object(), kept=2)
    kept = [{"n": n} for n in range(3)]
    first = profiles(kept[0])
    profiles(kept[1])
    profiles(kept[2])
    assert profiles(kept[2]) is profiles(kept[2])
    assert profiles(kept[0]) is not first  # dropped for the third, parsed again
