-- wrk script for the redirect benchmark: random slugs over /s/ and /q/, with the header mix of
-- traffic.ts (generated from it: keep the two in sync). SLUGS_FILE names one slug per line.
local slugs = {}
for line in io.lines(os.getenv("SLUGS_FILE")) do slugs[#slugs + 1] = line end
local agents = {
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Mobile Safari/537.36",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.3 Safari/605.1.15",
  "Mozilla/5.0 (X11; Linux x86_64; rv:123.0) Gecko/20100101 Firefox/123.0",
  "Mozilla/5.0 (iPad; CPU OS 17_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.3 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/121.0.0.0 Safari/537.36 Edg/121.0.0.0",
  "Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36",
  "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 312.0.0.0",
}
local referrers = {
  "",
  "",
  "https://www.google.com/",
  "https://t.co/abc",
  "https://www.facebook.com/",
  "https://news.ycombinator.com/item?id=1",
  "https://mail.example.org/inbox",
  "android-app://com.google.android.gm/",
}
local countries = {
  "US",
  "DE",
  "FR",
  "GB",
  "JP",
  "BR",
  "IN",
  "NL",
  "CA",
  "XX",
}
math.randomseed(os.time())

request = function()
  local path = (math.random(2) == 1 and "/s/" or "/q/") .. slugs[math.random(#slugs)]
  local headers = { ["User-Agent"] = agents[math.random(#agents)], ["CF-IPCountry"] = countries[math.random(#countries)] }
  local referrer = referrers[math.random(#referrers)]
  if referrer ~= "" then headers["Referer"] = referrer end
  return wrk.format("GET", path, headers)
end
