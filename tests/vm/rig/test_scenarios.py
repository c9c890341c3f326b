"""The scenarios as written (tests/vm/scenarios.py): what the suite vm
would run, checked without a guest.  Suite unit.

Run: cd tests/vm && python3 -m unittest rig.test_scenarios
"""

import os
import re
import unittest

from scenarios import BOOTS

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_BOOTS = 5       # in a CI run: each boot costs 10-60 s before its first check


def meson_boots():
    with open(os.path.join(HERE, 'meson.build')) as f:
        text = f.read()
    listed = re.search(r'^vm_boots = \[([^\]]*)\]', text, re.M)
    return re.findall(r"'([^']+)'", listed.group(1))


class Scenarios(unittest.TestCase):

    def test_every_excluded_case_runs_in_some_boot(self):
        # (binary, case) -> boots that run the binary without excluding it
        runs, excluded = {}, {}
        for boot in BOOTS:
            for check in boot.plan():
                for binary in (check.binaries if check.format == 'tap' else ()):
                    runs.setdefault(binary, set()).add(boot.name)
                    for case in check.excluded:
                        excluded.setdefault((binary, case), set()).add(boot.name)
        self.assertTrue(excluded, 'no boot excludes a case: is this test still needed?')
        for (binary, case), boots in sorted(excluded.items()):
            self.assertTrue(runs[binary] - boots,
                            '%s of %s is excluded from every boot that runs it (%s)'
                            % (case, binary, ', '.join(sorted(boots))))

    def test_meson_has_one_test_per_boot_and_at_most_five(self):
        self.assertEqual(sorted(meson_boots()), sorted(b.name for b in BOOTS))
        self.assertLessEqual(len(BOOTS), MAX_BOOTS)


if __name__ == '__main__':
    unittest.main()
