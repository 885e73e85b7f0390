"""The --html page, opened in a real headless browser (Debian's Chromium through chromedriver).

Three runs, one failing with a known error pattern: the page shows every run in its summary, sorts
it by a clicked column, and for the failing run draws a histogram whose bars hold the error counts
and a picture whose marked cells are where the errors were put. Nothing is fetched from a network.
Environment: RUNNER (aclnn_case_runner).
"""
import os
import re
import subprocess

import numpy as np
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

RUNNER = os.environ["RUNNER"]
CASES = """testcase_name,op_name,input_shapes,input_dtypes,attributes,input_data_ranges
page_small,mse_loss_grad,"((4, 5), (4, 5), (4, 5))","('float32',)",{'reduction': 'none'},"((-1, 1), (-1, 1), (-1, 1))"
page_wrong,mse_loss_grad,"((64, 128), (64, 128), (64, 128))","('float32',)",{'reduction': 'none'},"((-1, 1), (-1, 1), (-1, 1))"
page_half,mse_loss_grad,"((8, 8), (8, 8), (8, 8))","('float16',)",{'reduction': 'none'},"((-1, 1), (-1, 1), (-1, 1))"
odd<!--<script>é,mse_loss_grad,"((2,), (2,), (2,))","('float32',)",{'reduction': 'none'},
"""
ODD = 'odd<!--<script>é'  # a name that would end or open an element if written raw into the page


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    work = tmp_path_factory.mktemp("page")
    (work / "cases.csv").write_text(CASES)
    subprocess.run([RUNNER, "--dump-all", str(work / "dump"), str(work / "cases.csv")], check=True,
                   stdout=subprocess.PIPE)
    npu = work / "npu"
    npu.mkdir()
    for name in ("page_small", "page_half", ODD):
        stem = re.sub(rb"[^A-Za-z0-9._\-+=\[\]#]", b"_", name.encode()).decode()  # the runner's, byte by byte
        (npu / f"{stem}.npy").write_bytes((work / "dump" / f"{stem}.golden.npy").read_bytes())
    wrong = np.load(work / "dump" / "page_wrong.golden.npy").copy()
    wrong[10:14, 100:120] += 3.0  # 80 elements off by about 3, rows 10-13, columns 100-119
    wrong[50, 3] = np.nan         # one unbounded error
    np.save(npu / "page_wrong.npy", wrong)
    html = work / "report.html"
    proc = subprocess.run([RUNNER, "--compare", str(npu), "--html", str(html), str(work / "cases.csv")],
                          stdout=subprocess.PIPE, text=True)
    assert proc.returncode == 1 and re.search(r"\n3 passed, 1 failed in [^\n]+\n$", proc.stdout), proc.stdout
    options = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.get(html.as_uri())
    yield driver, html.read_text()
    driver.quit()


def summary_names(driver):
    return [row.find_elements(By.TAG_NAME, "td")[0].text
            for row in driver.find_elements(By.CSS_SELECTOR, "#summary tbody tr")]


def test_self_contained(page):
    _, text = page
    assert not re.search(r"(src|href)=\"(https?:)?//", text)
    assert "<script src" not in text


def test_summary_lists_every_run_and_sorts(page):
    driver, _ = page
    assert summary_names(driver) == ["page_small", "page_wrong", "page_half", ODD]
    header = driver.find_element(By.CSS_SELECTOR, "#summary th[data-key='max_abs_error']")
    header.click()  # ascending
    assert summary_names(driver)[-1] == "page_wrong"
    header.click()  # descending
    assert summary_names(driver)[0] == "page_wrong"
    assert header.get_attribute("data-dir") == "desc"
    outcome = driver.find_element(By.CSS_SELECTOR, "#summary tbody tr.fail td.outcome")
    assert outcome.text == "fail"


def test_failing_run_has_its_histogram_and_error_picture(page):
    driver, _ = page
    sections = driver.find_elements(By.CSS_SELECTOR, "section.run")
    assert [s.find_element(By.TAG_NAME, "h2").text for s in sections] == ["page_wrong"]
    section = sections[0]
    bars = {b.get_attribute("data-bin"): int(b.get_attribute("data-count"))
            for b in section.find_elements(By.CSS_SELECTOR, ".bar")}
    assert sum(bars.values()) == 64 * 128
    assert bars["unbounded"] == 1
    assert bars["1e0"] == 80  # the 80 elements off by about 3 (the decade [1, 10))
    assert bars["equal"] == 64 * 128 - 81
    # 64 rows in 32 cell rows (2 a cell), 128 columns in 64 cell columns (2 a cell).
    cells = section.find_elements(By.CSS_SELECTOR, ".grid .cell")
    assert len(cells) == 32 * 64
    marked = {i: int(c.get_attribute("data-over")) for i, c in enumerate(cells) if c.get_attribute("data-over")}
    expected = {}
    for r in range(10, 14):
        for c in range(100, 120):
            expected[(r // 2) * 64 + c // 2] = expected.get((r // 2) * 64 + c // 2, 0) + 1
    expected[25 * 64 + 1] = 1  # the NaN at [50, 3]
    assert marked == expected
    worst = section.find_elements(By.CSS_SELECTOR, "table.worst tr")
    assert worst[1].find_elements(By.TAG_NAME, "td")[0].text == "[50, 3]"
