-- wrk script: POST one-item orders (create_print_files false) with ids unique
-- per thread and request. Token from the TOKEN environment variable.
local threads = {}
local counter = 0
local prefix = ""

function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  prefix = tostring(os.time()) .. "-" .. tostring(tid)
  wrk.method = "POST"
  wrk.headers["Authorization"] = "Bearer " .. os.getenv("TOKEN")
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  counter = counter + 1
  local id = prefix .. "-" .. counter
  local body = '{"store_id":"' .. os.getenv("STORE") .. '","ecommerce_order_id":"o' .. id ..
    '","create_print_files":false,"items":[{"ecommerce_order_item_id":"i' .. id ..
    '","ecommerce_variant_id":"v1","quantity":1,"template_config":"%7B%22width%22%3A10%2C%22height%22%3A10%2C%22layers%22%3A%5B%5D%7D",' ..
    '"thumbnails":["https://example.com/t.png"]}]}'
  return wrk.format(nil, "/api/v1/orders", nil, body)
end
