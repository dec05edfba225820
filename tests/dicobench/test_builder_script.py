from datasets import load_dataset

from builder_scripts.dicobench_builder import DiCoBench


def test_builder_class_matches_the_built_folder(tmp_path, small_build):
    builder = DiCoBench(config_name="entity", per_task=2, cache_dir=str(tmp_path / "cache"))
    builder.download_and_prepare()
    ds = builder.as_dataset(split="test")
    built = load_dataset(str(small_build), "entity", split="test")
    assert ds.features == built.features
    assert ds["id"] == built["id"] and ds["options"] == built["options"] and ds["answer"] == built["answer"]
    assert ds[1]["image_b"].tobytes() == built[1]["image_b"].tobytes()
