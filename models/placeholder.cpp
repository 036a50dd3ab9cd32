// replaced by the models
