"""Derive the seven presets with symbolic parameters and write maxent_util/presets.json.

The presets at numeric parameters are the shipped symbolic laws with the numbers
substituted, so that a command such as ``maxent-util rank`` does not derive them
again on every run. Run this after changing the engine or the presets;
tests/test_families.py checks that the shipped file is current.
"""

from maxent_util.families import PRESETS_FILE, preset_documents

if __name__ == "__main__":
    PRESETS_FILE.write_text(preset_documents(), encoding="utf-8")
    print(f"wrote {PRESETS_FILE}")
