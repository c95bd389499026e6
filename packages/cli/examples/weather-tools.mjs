// A tools module for `agentloop run --tools`: its default export registers tools on the registry.
const CELSIUS = { Pune: 30, Delhi: 35 };

export default function register(registry) {
  registry.register(
    "get_weather",
    "Current temperature of one city in Celsius.",
    { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    ({ city }) => ({ city, celsius: CELSIUS[city] ?? 20 }),
  );
  registry.register(
    "c_to_f",
    "Convert Celsius to Fahrenheit.",
    { type: "object", properties: { celsius: { type: "number" } }, required: ["celsius"] },
    ({ celsius }) => (celsius * 9) / 5 + 32,
  );
}
